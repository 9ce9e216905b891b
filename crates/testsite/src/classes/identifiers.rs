//! Reference pages that differ only by an identifier token, as in the Rust std docs:
//! `/types/u128` vs `/types/i128`, `/types/f32x2` vs `/types/u8x2`, `/types/blkcnt_t` vs
//! `/types/pthread_t`, `/types/x86_64` vs `/types/aarch64`. The identifier occurs every few
//! words, so two pages of a family share well under half of their word 5-shingles: they are
//! distinct pages.
//!
//! Also two modules of intrinsics, as rustdoc has `core::arch::x86_64` and `core::arch::x86`:
//! the wide module's index lists [`SHARED_ITEMS`] + [`WIDE_ONLY_ITEMS`] functions, the narrow
//! one's the shared ones and one of its own. Nearly all of the narrow index is inside the wide
//! one, but its one entry of its own makes it a distinct page: merged into the wide index, its
//! links would not be followed, and its own function's page (reachable only through it) would
//! be lost. The shared functions' pages under the narrow module are copies of the wide
//! module's.

use std::fmt::Write as _;

use super::HostPages;
use super::skeleton::{Chrome, esc, link_list};
use super::truth::{ClassTruth, CopyOf, PageClass};
use crate::text::prose_for;

const CHROME: Chrome = Chrome {
    brand: "Primitive Reference",
    nav: &[
        ("/", "All types"),
        ("/types/u8", "Integers"),
        ("/types/blkcnt_t", "Aliases"),
    ],
    footer: "Primitive Reference documents types for systems programmers.",
};

/// Families of identifiers, each with its page template (`{t}` is the identifier).
const FAMILIES: &[(&[&str], &str, &[&str])] = &[
    (
        &[
            "u8", "u16", "u32", "u64", "u128", "i8", "i16", "i32", "i64", "i128",
        ],
        "integer type",
        &[
            "{t}::MAX is the largest value that {t} can represent.",
            "{t}::MIN is the smallest value that {t} can represent.",
            "{t}::BITS is the size of {t} in bits.",
            "{t}::checked_add returns None when the sum overflows {t}.",
            "{t}::wrapping_mul wraps around at the boundary of {t}.",
            "{t}::saturating_sub clamps the difference to the range of {t}.",
            "{t}::count_ones counts the set bits of a {t} value.",
            "{t}::leading_zeros counts the zero bits before the first one in {t}.",
            "{t}::from_str_radix parses a string into {t} in the given base.",
            "{t}::to_le_bytes returns the memory of {t} in little endian order.",
            "{t}::pow raises a {t} to a power and panics on overflow in debug builds.",
            "Converting a {t} with as truncates or extends it like any {t} cast.",
        ],
    ),
    (
        &["f32x2", "u8x2", "i16x4", "f64x4"],
        "portable vector type",
        &[
            "{t}::splat builds a {t} with every lane set to one value.",
            "{t}::from_array turns an array into a {t} without copying lanes twice.",
            "{t}::to_array returns the lanes of a {t} as an array.",
            "{t}::reduce_sum adds up every lane of a {t}.",
            "{t}::simd_max compares two {t} values lane by lane.",
            "{t}::rotate_elements_left moves the lanes of a {t} to the left.",
            "{t}::LEN is the number of lanes in {t}.",
            "Arithmetic on {t} applies lane by lane, so {t} addition never carries.",
            "Comparisons of {t} return a mask with one entry per lane of {t}.",
            "Loading a {t} from a slice checks that the slice is long enough for {t}.",
        ],
    ),
    (
        &["blkcnt_t", "pthread_t", "ino_t", "off_t"],
        "raw type alias",
        &[
            "{t} is a raw type alias from the platform headers of unix systems.",
            "On x86_64 Linux {t} is defined by the C library, and {t} follows its width.",
            "Code that stores {t} should not assume the width of {t} on other targets.",
            "Functions in std::os::unix::raw take {t} exactly as the C headers declare {t}.",
            "A {t} can be converted to a wider integer without loss, but not every {t} fits a narrower one.",
            "The alias {t} is deprecated in favour of the libc crate, which also defines {t}.",
            "Printing a {t} uses the formatting of the integer type behind {t}.",
            "Serialising {t} values portably means widening each {t} first.",
        ],
    ),
    (
        &["x86_64", "aarch64", "riscv64gc"],
        "target architecture",
        &[
            "The {t} target has its own calling convention, and {t} code must follow it.",
            "Intrinsics for {t} live in core::arch::{t} and are unsafe to call.",
            "Feature detection on {t} checks at run time what the {t} processor supports.",
            "Inline assembly for {t} must name registers that exist on {t}.",
            "Atomic operations on {t} compile to the native instructions of {t}.",
            "Cross compiling for {t} needs a linker that understands {t} objects.",
            "Alignment rules on {t} decide how structs are laid out for {t}.",
            "Tier one support for {t} means every release is tested on {t} hosts.",
        ],
    ),
];

pub(crate) fn build(base: &str) -> (HostPages, ClassTruth) {
    let mut pages = HostPages::new();
    let mut truth = ClassTruth::new(PageClass::Identifiers);
    let mut listing = Vec::new();
    for (names, kind, sentences) in FAMILIES {
        for t in *names {
            let mut main = format!("<h1>{kind} {t}</h1>\n<ul class=\"items\">\n");
            for s in *sentences {
                let _ = writeln!(main, "<li><p>{}</p></li>", esc(&s.replace("{t}", t)));
            }
            main.push_str("</ul>\n");
            let path = format!("/types/{t}");
            pages.insert(path.clone(), CHROME.page(&format!("{kind} {t}"), &main, ""));
            truth.distinct.push(format!("{base}{path}"));
            listing.push((path, format!("{kind} {t}")));
        }
    }
    listing.push(("/arch/x86_64/".into(), "Module core::arch::x86_64".into()));
    build_modules(base, &mut pages, &mut truth);
    let index = format!("<h1>All types</h1>\n{}", link_list(&listing));
    pages.insert("/".into(), CHROME.page("All types", &index, ""));
    truth.distinct.push(format!("{base}/"));
    (pages, truth)
}

/// Functions both intrinsics modules have, and those only the wide one has.
pub(crate) const SHARED_ITEMS: usize = 40;
pub(crate) const WIDE_ONLY_ITEMS: usize = 50;

/// An intrinsic's name: an identifier token, as `_mm_add_ps`.
fn intrinsic(k: usize) -> String {
    const OPS: [&str; 5] = ["add", "mul", "shuffle", "load", "store"];
    format!("_mm_{}{k}_ps", OPS[k % OPS.len()])
}

/// One line of a module index: the function's name (a link to its page) and its summary.
fn index_entry(name: &str) -> String {
    let summary = prose_for(&format!("summary of {name}"), 50).join(" ");
    format!(
        "<li><p><a href=\"fn.{name}.html\">{name}</a> {}</p></li>\n",
        esc(&summary)
    )
}

/// A function's page: the same text in either module.
fn function_page(name: &str) -> String {
    let mut main = format!("<h1>Function {name}</h1>\n");
    for paragraph in prose_for(&format!("docs of {name}"), 70) {
        let _ = writeln!(main, "<p>{}</p>", esc(&paragraph));
    }
    CHROME.page(&format!("Function {name}"), &main, "")
}

/// The two intrinsics modules (see the module doc), their pages and truth.
fn build_modules(base: &str, pages: &mut HostPages, truth: &mut ClassTruth) {
    let shared: Vec<String> = (0..SHARED_ITEMS).map(intrinsic).collect();
    let wide_only: Vec<String> = (SHARED_ITEMS..SHARED_ITEMS + WIDE_ONLY_ITEMS)
        .map(intrinsic)
        .collect();
    let narrow_only = intrinsic(SHARED_ITEMS + WIDE_ONLY_ITEMS);

    // The narrow index is linked only from the wide one, so it is fetched after it.
    let mut wide = String::from("<h1>Module x86_64</h1>\n<ul class=\"items\">\n");
    for name in shared.iter().chain(&wide_only) {
        wide.push_str(&index_entry(name));
        pages.insert(format!("/arch/x86_64/fn.{name}.html"), function_page(name));
        truth
            .distinct
            .push(format!("{base}/arch/x86_64/fn.{name}.html"));
    }
    wide.push_str("</ul>\n<p>See also <a href=\"../x86/\">the 32-bit module</a>.</p>\n");
    pages.insert(
        "/arch/x86_64/".into(),
        CHROME.page("Module x86_64", &wide, ""),
    );
    truth.distinct.push(format!("{base}/arch/x86_64/"));

    let mut narrow = String::from("<h1>Module x86</h1>\n<ul class=\"items\">\n");
    for name in &shared {
        narrow.push_str(&index_entry(name));
        pages.insert(format!("/arch/x86/fn.{name}.html"), function_page(name));
        truth.copies.push(CopyOf {
            copy: format!("{base}/arch/x86/fn.{name}.html"),
            original: format!("{base}/arch/x86_64/fn.{name}.html"),
        });
    }
    narrow.push_str(&index_entry(&narrow_only));
    narrow.push_str("</ul>\n");
    pages.insert(
        format!("/arch/x86/fn.{narrow_only}.html"),
        function_page(&narrow_only),
    );
    truth
        .distinct
        .push(format!("{base}/arch/x86/fn.{narrow_only}.html"));
    pages.insert("/arch/x86/".into(), CHROME.page("Module x86", &narrow, ""));
    truth.distinct.push(format!("{base}/arch/x86/"));
}
