//! Inputs that crashed a fuzz target (`fuzz/`, `scripts/fuzz`), kept so they never crash again.

use dedupcrawl_frontier::{CanonicalUrl, CanonicalizationRules};
use url::Url;

/// canonical_url, crash-68d1562a: a query parameter name whose first 12 bytes (the length of
/// the default prefix `aspsessionid`) end inside `é`; the prefix check sliced the name there
/// and panicked. The same happens to any link of that shape on a crawled page.
#[test]
fn parameter_name_with_a_multibyte_character_at_a_prefix_length() {
    let base = Url::parse("https://www.example.org/a/b/c.html?q=1").expect("valid base");
    let rules = CanonicalizationRules::default();
    let canonical = CanonicalUrl::parse("h?tps://xnorné'asmq6c.com", Some(&base), &rules)
        .expect("a relative link with a query");
    assert_eq!(
        canonical.as_str(),
        "https://www.example.org/a/b/h?tps://xnorn%C3%A9%27asmq6c.com"
    );
    // Every prefix length, at every byte of a two- and a three-byte character.
    for name in ["aspsessioné", "aspsessionié", "utmé", "ut€_x", "é", "€"] {
        assert!(!rules.strips_param(name), "{name} is not a stripped name");
    }
    assert!(rules.strips_param("ASPSESSIONIDé"));
    assert!(rules.strips_param("utm_é"));
}

fn canonical(input: &str) -> String {
    let rules = CanonicalizationRules::default();
    let canonical = CanonicalUrl::parse(input, None, &rules).expect("an http URL");
    let again = CanonicalUrl::parse(canonical.as_str(), None, &rules).expect("parses again");
    assert_eq!(
        again.as_str(),
        canonical.as_str(),
        "{input:?} is not idempotent"
    );
    canonical.as_str().to_string()
}

/// canonical_url, crash-cacf41e8: `%%33` decoded its `%33` to `3` after a stray `%`, making
/// a new escape `%33` that the next canonicalization decoded again (`…%3337.` → `…337.`).
#[test]
fn decoding_does_not_complete_an_escape_with_a_stray_percent() {
    assert_eq!(
        canonical("http:/3/23133%%33337."),
        "http://0.0.0.3/23133%%33337."
    );
    assert_eq!(canonical("http://a/%%41?q=%3%36"), "http://a/%%41?q=%3%36");
    assert_eq!(canonical("http://a/%x%47%7e"), "http://a/%xG~");
    assert_eq!(canonical("http://a/%%2e%7E"), "http://a/%.~");
}
