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
