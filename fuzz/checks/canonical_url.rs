//! URL canonicalization: canon(canon(u)) == canon(u), absolute and relative to a base, under
//! the default rules and under none.
//!
//! The check of one input, shared by the fuzz target `fuzz_targets/canonical_url.rs` and the corpus
//! replay test (crates/crawler/tests/fuzz_corpus.rs).

use dedupcrawl_frontier::{CanonicalUrl, CanonicalizationRules};
use url::Url;

/// One input: panics (a failed check) when the code under test misbehaves on it.
pub fn check(data: &[u8]) {
    let Ok(input) = std::str::from_utf8(data) else {
        return;
    };
    let base = Url::parse("https://www.example.org/a/b/c.html?q=1").expect("a valid constant");
    for rules in [
        CanonicalizationRules::default(),
        CanonicalizationRules::none(),
    ] {
        for base in [None, Some(&base)] {
            let Ok(canonical) = CanonicalUrl::parse(input, base, &rules) else {
                continue;
            };
            let again = match CanonicalUrl::parse(canonical.as_str(), None, &rules) {
                Ok(again) => again,
                Err(error) => panic!("{canonical:?} does not parse again: {error}"),
            };
            assert_eq!(
                again.as_str(),
                canonical.as_str(),
                "canonical form of {input:?} is not idempotent"
            );
            let _ = canonical.host();
            let _ = canonical.path_and_query();
        }
    }
}
