//! Reference pages that differ only by an identifier token, as in the Rust std docs:
//! `/types/u128` vs `/types/i128`, `/types/f32x2` vs `/types/u8x2`, `/types/blkcnt_t` vs
//! `/types/pthread_t`, `/types/x86_64` vs `/types/aarch64`. The identifier occurs every few
//! words, so two pages of a family share well under half of their word 5-shingles: they are
//! distinct pages.

use std::fmt::Write as _;

use super::HostPages;
use super::skeleton::{Chrome, esc, link_list};
use super::truth::{ClassTruth, PageClass};

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
    let index = format!("<h1>All types</h1>\n{}", link_list(&listing));
    pages.insert("/".into(), CHROME.page("All types", &index, ""));
    truth.distinct.push(format!("{base}/"));
    (pages, truth)
}
