//! The API-reference host: pages that differ only by an identifier, as generated reference
//! docs do (`u8`/`u16`/`u32`, `sha1`/`sha256`, `x86`/`x86_64`, `i16x8`/`u16x8`). Every
//! sentence and signature names the page's identifier every few words, so two pages of a
//! family share well under half of their word 5-shingles: they are distinct pages.

use super::chrome::Chrome;
use super::corpus::Draw;
use super::page::{Block, Page};
use super::style::{MarkupStyle, render};
use super::{HostPages, HostTruth};
use crate::PageClass;

/// (identifiers, kind, signatures, sentences); `{t}` is the identifier.
type Family = (
    &'static [&'static str],
    &'static str,
    &'static [&'static str],
    &'static [&'static str],
);

const FAMILIES: &[Family] = &[
    (
        &["u8", "u16", "u32", "u64", "usize"],
        "unsigned integer",
        &[
            "pub const fn rotate_left(self: {t}, n: u32) -> {t}",
            "pub const fn checked_div(self: {t}, rhs: {t}) -> Option<{t}>",
            "pub fn from_be_bytes(bytes: [u8; size_of::<{t}>()]) -> {t}",
        ],
        &[
            "Returns the {t} with its bits rotated, so a {t} never loses bits.",
            "Dividing one {t} by another {t} yields None when the {t} divisor is zero.",
            "A {t} read from big endian bytes equals the {t} the sender wrote.",
            "Every {t} value fits in a u128, so widening a {t} is lossless.",
            "Parsing text into {t} fails when the {t} would overflow.",
            "Summing {t} values with wrapping_add keeps each {t} in range.",
            "The {t} type implements Ord, so sorting {t} slices is stable.",
            "Casting a {t} to f64 rounds only when the {t} exceeds fifty three bits.",
        ],
    ),
    (
        &["sha1", "sha224", "sha256", "sha384", "sha512", "md5"],
        "digest",
        &[
            "pub fn new() -> Hasher<{t}>",
            "pub fn update(hasher: &mut Hasher<{t}>, data: &[u8])",
            "pub fn finalize(hasher: Hasher<{t}>) -> Output<{t}>",
        ],
        &[
            "Creates a {t} hasher; feed the {t} state with update.",
            "Each {t} update appends bytes, and {t} output depends on every byte.",
            "Finalizing a {t} hasher consumes the {t} state and returns the digest.",
            "Two {t} digests compare in constant time through the {t} Output type.",
            "Hex encoding a {t} digest doubles the {t} output length.",
            "Streaming large files through {t} keeps {t} memory use constant.",
            "Keyed {t} hashing goes through Hmac over {t} instead.",
            "The {t} block size decides how {t} pads the final message.",
        ],
    ),
    (
        &["x86", "x86_64", "aarch64", "armv7", "riscv64"],
        "target architecture",
        &[
            "#[cfg(target_arch = \"{t}\")] pub mod {t}",
            "pub unsafe fn cpuid_{t}(leaf: u32) -> Features<{t}>",
            "pub fn is_feature_detected_{t}(name: &str) -> bool",
        ],
        &[
            "Intrinsics for {t} are only compiled when building for {t} targets.",
            "Detecting {t} features at run time lets {t} code choose faster paths.",
            "Calling a {t} intrinsic on a non {t} processor is undefined behaviour.",
            "The {t} calling convention decides which {t} registers hold arguments.",
            "Atomics on {t} map to native {t} instructions where they exist.",
            "Cross compiling to {t} needs a linker that emits {t} objects.",
            "Alignment on {t} follows the {t} ABI for every primitive.",
            "Tier one {t} support means each release is tested on {t} hosts.",
        ],
    ),
    (
        &["i16x8", "u16x8", "i32x4", "u32x4", "i8x16", "f32x4"],
        "vector type",
        &[
            "pub fn splat(value: Lane<{t}>) -> {t}",
            "pub fn reduce_max(self: {t}) -> Lane<{t}>",
            "pub fn shuffle<const IDX: [usize; LANES]>(a: {t}, b: {t}) -> {t}",
        ],
        &[
            "Builds a {t} whose lanes all hold one value, so every {t} lane matches.",
            "Reducing a {t} returns the largest lane of that {t}.",
            "Shuffling two {t} operands picks lanes into a new {t}.",
            "Adding two {t} values works lane by lane; a {t} sum never carries.",
            "Comparing {t} operands yields a mask with one bit per {t} lane.",
            "Loading a {t} from memory requires the {t} alignment or an unaligned load.",
            "Converting {t} to an array copies each {t} lane in order.",
            "Bitwise operations on {t} treat the {t} as raw bits.",
        ],
    ),
];

pub(crate) fn build(style: MarkupStyle, draw: &mut Draw, truth: &mut HostTruth) -> HostPages {
    let brand = format!("{} API reference", draw.brand_word("Core"));
    let path = |t: &str| {
        if style == MarkupStyle::Tables {
            format!("/ref.php?item={t}")
        } else {
            format!("/api/{t}.html")
        }
    };
    let mut targets: Vec<(String, String)> = vec![("/".into(), "Index".into())];
    for (names, kind, _, _) in FAMILIES {
        targets.push((path(names[0]), format!("{kind}s")));
    }
    let chrome = Chrome::draw(style, &brand, &targets, draw);
    let mut pages = HostPages::new();
    let class = truth.class(PageClass::Identifiers);
    let mut index = Page::new("Index").with(Block::Title(format!("{brand}: all items")));
    for (names, kind, signatures, sentences) in FAMILIES {
        let mut links = Vec::new();
        for t in *names {
            let mut page =
                Page::new(&format!("{kind} {t}")).with(Block::Title(format!("{kind} {t}")));
            let code: Vec<String> = signatures.iter().map(|s| s.replace("{t}", t)).collect();
            page = page.with(Block::Code(code.join("\n")));
            for s in *sentences {
                page = page.with(Block::Para(s.replace("{t}", t)));
            }
            pages.insert(path(t), render(&chrome, &page, &[]));
            class.distinct.push(path(t));
            links.push((path(t), t.to_string()));
        }
        index = index
            .with(Block::Subhead(format!("{kind}s")))
            .with(Block::Links(links));
    }
    pages.insert("/".into(), render(&chrome, &index, &[]));
    class.distinct.push("/".into());
    pages
}
