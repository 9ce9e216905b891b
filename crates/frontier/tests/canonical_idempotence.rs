//! Property: canonicalization is idempotent, canon(canon(u)) == canon(u), for absolute URLs and
//! links relative to a page, under the default rules and under none.
//!
//! The inputs come from a seeded generator that assembles URLs from pieces known to be tricky
//! (case, default ports, IDNA and IP hosts, trailing dots, dot segments in every spelling,
//! percent-escapes valid and not, session and tracking parameters in the query and the path,
//! empty pieces) and then mutates them with characters that parsers treat specially. A seeded
//! generator instead of proptest/quickcheck: neither is in the dependency graph, `rand` is, and
//! a failure prints the input, which is all shrinking would add for strings this short. The
//! libFuzzer target `fuzz/fuzz_targets/canonical_url.rs` checks the same property on inputs it
//! evolves by coverage.

use dedupcrawl_frontier::{CanonicalUrl, CanonicalizationRules};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use url::Url;

const SCHEMES: &[&str] = &[
    "http://", "https://", "HTTP://", "HtTpS://", "http:", "https:/", "",
];
const USERINFO: &[&str] = &["", "", "user@", "user:pass@", ":@", "a%40b@"];
const HOSTS: &[&str] = &[
    "example.com",
    "Example.COM",
    "example.com.",
    "example.com..",
    "www.example.com",
    "xn--nxasmq6b.com",
    "bücher.example",
    "EXAMPLE.xn--p1ai",
    "127.0.0.1",
    "0x7f.1",
    "192.168.0.1.",
    "[::1]",
    "[2001:DB8::1]",
    "%65xample.com",
    "a",
    ".",
    "",
];
const PORTS: &[&str] = &["", "", ":80", ":443", ":8080", ":", ":0", ":65535"];
const SEGMENTS: &[&str] = &[
    "a",
    "B",
    ".",
    "..",
    "%2e",
    "%2E%2e",
    ".%2e",
    "%7e",
    "%7Euser",
    "%2f",
    "%2F",
    "a b",
    "é",
    "caf%c3%a9",
    "%zz",
    "100%",
    "%",
    "",
    ";p",
    "x;jsessionid=1",
    "x;SID=2;keep=3",
    "%3B",
    "%3Bsid=4",
    "a%2e",
    "index.html",
    "~",
    "%252e",
    "+",
    "%20",
    "\\",
    "%5C",
    // Found by the fuzz target: escapes after a stray `%`.
    "%%33",
    "%3%33",
    "1%%4133",
];
const PARAMS: &[&str] = &[
    "a=1",
    "b=2",
    "a=2",
    "a",
    "=",
    "=x",
    "",
    "utm_source=feed",
    "UTM_Medium=x",
    "utm%5Fsource=y",
    "sessionid=abc",
    "jsessionid=1",
    "gclid=2",
    "q=%7e%2f",
    "q=a+b",
    "q=a%20b",
    "%26=1",
    "k=%3D",
    "x=é",
    "x=%zz",
    "z=1;y=2",
    "PHPSESSID=",
    "sid",
    "c=%41",
    // Found by the fuzz target: a multi-byte character where a stripped prefix ends.
    "aspsessioné=1",
    "utmé=2",
    "q=%%61",
];
const FRAGMENTS: &[&str] = &["", "", "#", "#top", "#a?b=1", "#%zz"];
/// Characters that parsers treat specially, inserted at random places.
const NOISE: &[&str] = &[
    "\t", "\n", " ", "\\", "%", "%2", "#", "?", "&", ";", "=", "@", ":", "/", "//", "[", "]", ".",
    "..", "é", "\u{200b}", "%00", "%ff", "\u{feff}",
];

fn pick<'a>(rng: &mut StdRng, pieces: &[&'a str]) -> &'a str {
    pieces[rng.random_range(0..pieces.len())]
}

fn generate(rng: &mut StdRng) -> String {
    let mut url = String::new();
    if rng.random_bool(0.8) {
        url.push_str(pick(rng, SCHEMES));
        url.push_str(pick(rng, USERINFO));
        url.push_str(pick(rng, HOSTS));
        url.push_str(pick(rng, PORTS));
    }
    for _ in 0..rng.random_range(0..6) {
        url.push('/');
        url.push_str(pick(rng, SEGMENTS));
    }
    if rng.random_bool(0.6) {
        url.push('?');
        for index in 0..rng.random_range(0..6) {
            if index > 0 {
                url.push('&');
            }
            url.push_str(pick(rng, PARAMS));
        }
    }
    url.push_str(pick(rng, FRAGMENTS));
    for _ in 0..rng.random_range(0..3) {
        let mut at = rng.random_range(0..=url.len());
        while !url.is_char_boundary(at) {
            at -= 1;
        }
        url.insert_str(at, pick(rng, NOISE));
    }
    url
}

/// Panics with the input when its canonical form changes on a second canonicalization.
fn assert_idempotent(input: &str, base: Option<&Url>, rules: &CanonicalizationRules) -> bool {
    let Ok(canonical) = CanonicalUrl::parse(input, base, rules) else {
        return false;
    };
    let again = CanonicalUrl::parse(canonical.as_str(), None, rules).unwrap_or_else(|error| {
        panic!("{input:?} (base {base:?}) → {canonical:?}, which does not parse again: {error}")
    });
    assert_eq!(
        again.as_str(),
        canonical.as_str(),
        "canonical form of {input:?} (base {base:?}) changes when canonicalized again"
    );
    true
}

#[test]
fn canonicalization_is_idempotent_on_generated_urls() {
    let mut rng = StdRng::seed_from_u64(0x00c4_a011_ca11);
    let base = Url::parse("https://www.example.org/dir/page.html?q=1").expect("valid base");
    let rule_sets = [
        CanonicalizationRules::default(),
        CanonicalizationRules::none(),
    ];
    let mut canonicalized = 0;
    for _ in 0..20_000 {
        let input = generate(&mut rng);
        for rules in &rule_sets {
            for base in [None, Some(&base)] {
                canonicalized += usize::from(assert_idempotent(&input, base, rules));
            }
        }
    }
    // The generator must mostly produce URLs, or the property is checked on nothing.
    assert!(
        canonicalized > 40_000,
        "only {canonicalized} of 80,000 generated inputs canonicalized"
    );
}
