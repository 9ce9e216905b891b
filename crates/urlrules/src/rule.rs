//! One URL rule: what it is ([`Rule`]), which rules explain a pair of URLs with the same
//! content ([`Rule::explaining`]), and the normal form a rule gives a URL
//! ([`Rule::normal_form`]): two URLs a rule relates are two URLs of one normal form.

use std::fmt;

use serde::{Deserialize, Serialize};
use url::Url;

use crate::url_parts::{PathSegments, QueryParams};

/// Most query parameters one pair may differ in and still teach a rule per parameter (a
/// tracking link adds `ref`, `src` and `campaign` together; more is another page).
pub const MAX_PARAMS_PER_PAIR: usize = 3;

/// Most path segments on either side of a substitution (`x86` ↔ `x86_64`, `core` ↔ `std`).
pub const MAX_SUBSTITUTED_SEGMENTS: usize = 2;

/// Shortest run of letters and digits after a segment's prefix that makes the segment a
/// session token (`sess-8f3a2b9c`).
pub const MIN_TOKEN_CHARS: usize = 8;

/// A path segment a [`Rule::Segment`] inserts or removes.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(tag = "kind", content = "value", rename_all = "snake_case")]
pub enum SegmentPattern {
    /// This segment exactly (`print`, `amp`).
    Literal(String),
    /// A session token: this prefix, then at least [`MIN_TOKEN_CHARS`] letters and digits
    /// with at least one digit (`sess-` of `sess-8f3a2b9c`; the prefix may be empty).
    Token(String),
}

impl SegmentPattern {
    /// The pattern a removed segment stands for: a token if it looks like one.
    pub fn of(segment: &str) -> SegmentPattern {
        match token_prefix(segment) {
            Some(prefix) => SegmentPattern::Token(prefix.to_string()),
            None => SegmentPattern::Literal(segment.to_string()),
        }
    }

    /// Whether `segment` is one this pattern stands for.
    pub fn matches(&self, segment: &str) -> bool {
        match self {
            SegmentPattern::Literal(literal) => segment == literal,
            SegmentPattern::Token(prefix) => token_prefix(segment) == Some(prefix.as_str()),
        }
    }
}

/// The prefix of a session-token segment: what comes before its last run of letters and
/// digits, when that run is long enough and holds a digit and a letter.
fn token_prefix(segment: &str) -> Option<&str> {
    let start = segment
        .char_indices()
        .rev()
        .take_while(|(_, c)| c.is_ascii_alphanumeric())
        .last()
        .map(|(at, _)| at)?;
    let token = &segment[start..];
    let long = token.len() >= MIN_TOKEN_CHARS;
    let mixed =
        token.bytes().any(|b| b.is_ascii_digit()) && token.bytes().any(|b| b.is_ascii_alphabetic());
    (long && mixed).then(|| &segment[..start])
}

/// A rewrite that maps URLs of one host onto others with the same content.
///
/// Every rule is an equivalence: it gives each URL a [normal form](Rule::normal_form), and it
/// relates two URLs when they differ and their normal forms are equal.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Rule {
    /// A query parameter that does not change content: every value of it is dropped.
    DropParam {
        /// The parameter's name as written.
        name: String,
    },
    /// A path segment inserted or removed (`/print/`, `/amp/`, a session token): the normal
    /// form has no such segment, except where it is a directory page's own directory
    /// (`c_str` of `/ffi/c_str/index.html`, which lists another directory than `/ffi/`).
    Segment {
        /// Which segments.
        segment: SegmentPattern,
    },
    /// A directory's index file named or not (`/docs/index.html` and `/docs/`): the normal
    /// form ends with the directory's slash instead.
    DirectoryIndex {
        /// The file's name (`index.html`).
        name: String,
    },
    /// After the segments of `prefix`, the segments of `from` stand for those of `to`
    /// (`/core/arch/` + `x86_64` → `x86`), unless `from` holds a directory page's own
    /// directory. `to` sorts before `from`, so a pair and its reverse teach one rule.
    Substitute {
        /// The leading segments both sides share.
        prefix: Vec<String>,
        /// The segments replaced in the normal form.
        from: Vec<String>,
        /// The segments that replace them.
        to: Vec<String>,
    },
    /// The path's case does not matter: the normal form's path is lower case.
    Case,
    /// A trailing slash does not matter: the normal form's path has none.
    TrailingSlash,
}

impl Rule {
    /// The rules that explain why `url` and `original` (two URLs of one host, seen to have
    /// the same content) may be two names of one page: each relates the two. Usually one rule,
    /// one per parameter when only query parameters differ; none when the URLs differ in
    /// more than one of the ways rules know, or are on different hosts.
    pub fn explaining(url: &Url, original: &Url) -> Vec<Rule> {
        if url == original || url.origin() != original.origin() {
            return Vec::new();
        }
        let candidates = if url.path() == original.path() {
            param_rules(url, original)
        } else if url.query() == original.query() {
            path_rule(url.path(), original.path()).into_iter().collect()
        } else {
            Vec::new()
        };
        candidates
            .into_iter()
            .filter(|rule| rule.relates(url, original) || rule.relates_in_part(url, original))
            .collect()
    }

    /// `url` in the rule's normal form (as a string).
    pub fn normal_form(&self, url: &Url) -> String {
        let mut normal = url.clone();
        self.normalize(&mut normal);
        normal.into()
    }

    /// Puts `url` in the rule's normal form.
    pub fn normalize(&self, url: &mut Url) {
        match self {
            Rule::DropParam { name } => {
                let mut params = QueryParams::of(url);
                params.remove(name);
                params.write_to(url);
            }
            Rule::Segment { segment } => {
                let mut path = PathSegments::of(url.path());
                let own = path.own_directory();
                path.retain(|at, s| !segment.matches(s) || Some(at) == own);
                url.set_path(&path.to_path());
            }
            Rule::DirectoryIndex { name } => {
                let mut path = PathSegments::of(url.path());
                if path.replace_last(name, "") {
                    url.set_path(&path.to_path());
                }
            }
            Rule::Substitute { prefix, from, to } => {
                let mut path = PathSegments::of(url.path());
                if path.replace_after(prefix, from, to) {
                    url.set_path(&path.to_path());
                }
            }
            Rule::Case => {
                let lower = url.path().to_lowercase();
                url.set_path(&lower);
            }
            Rule::TrailingSlash => {
                let mut path = PathSegments::of(url.path());
                path.trim_trailing_slash();
                url.set_path(&path.to_path());
            }
        }
    }

    /// Whether the rule maps `a` and `b` onto each other: they differ and have one normal
    /// form.
    pub fn relates(&self, a: &Url, b: &Url) -> bool {
        a != b && self.normal_form(a) == self.normal_form(b)
    }

    /// A pair that differs in several parameters is explained by each parameter's rule in
    /// part: dropping every differing parameter relates them.
    fn relates_in_part(&self, a: &Url, b: &Url) -> bool {
        let Rule::DropParam { .. } = self else {
            return false;
        };
        let names = QueryParams::of(a).differing_names(&QueryParams::of(b));
        let all: Vec<Rule> = names
            .into_iter()
            .map(|name| Rule::DropParam { name })
            .collect();
        let normal = |url: &Url| {
            let mut url = url.clone();
            all.iter().for_each(|rule| rule.normalize(&mut url));
            String::from(url)
        };
        all.contains(self) && normal(a) == normal(b)
    }

    /// The key the rule is stored and logged under (its [`Display`](fmt::Display) text).
    pub fn key(&self) -> String {
        self.to_string()
    }
}

/// The rules of a pair with one path: one per differing parameter, none past
/// [`MAX_PARAMS_PER_PAIR`].
fn param_rules(url: &Url, original: &Url) -> Vec<Rule> {
    let names = QueryParams::of(url).differing_names(&QueryParams::of(original));
    if names.is_empty() || names.len() > MAX_PARAMS_PER_PAIR {
        return Vec::new();
    }
    names
        .into_iter()
        .map(|name| Rule::DropParam { name })
        .collect()
}

/// The rule of a pair with one query and two paths: case, trailing slash, one segment
/// inserted, or one run of segments substituted.
fn path_rule(a: &str, b: &str) -> Option<Rule> {
    if a.to_lowercase() == b.to_lowercase() {
        return Some(Rule::Case);
    }
    if a.trim_end_matches('/') == b.trim_end_matches('/') {
        return Some(Rule::TrailingSlash);
    }
    let (sa, sb) = (PathSegments::of(a), PathSegments::of(b));
    let (prefix, middle_a, middle_b) = sa.difference(&sb);
    let segment_rule = |inserted: &[String]| match inserted {
        [one] if !one.is_empty() => Some(Rule::Segment {
            segment: SegmentPattern::of(one),
        }),
        _ => None,
    };
    match (middle_a.as_slice(), middle_b.as_slice()) {
        ([], inserted) | (inserted, []) => segment_rule(inserted),
        // `/docs/` and `/docs/index.html`: the last segment removed, the slash kept.
        ([last], [empty]) | ([empty], [last]) if empty.is_empty() => {
            Some(Rule::DirectoryIndex { name: last.clone() })
        }
        ([one], [other]) if SegmentPattern::of(one) == SegmentPattern::of(other) => {
            segment_rule(std::slice::from_ref(one))
        }
        (ma, mb)
            if ma.len() <= MAX_SUBSTITUTED_SEGMENTS && mb.len() <= MAX_SUBSTITUTED_SEGMENTS =>
        {
            let (from, to) = if ma > mb { (ma, mb) } else { (mb, ma) };
            Some(Rule::Substitute {
                prefix,
                from: from.to_vec(),
                to: to.to_vec(),
            })
        }
        _ => None,
    }
}

impl fmt::Display for Rule {
    /// `drop-param ref`, `segment print`, `segment token sess-*`, `directory-index index.html`,
    /// `substitute /core/arch/{x86_64 -> x86}/`, `case`, `trailing-slash`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Rule::DropParam { name } => write!(f, "drop-param {name}"),
            Rule::Segment {
                segment: SegmentPattern::Literal(literal),
            } => write!(f, "segment {literal}"),
            Rule::Segment {
                segment: SegmentPattern::Token(prefix),
            } => write!(f, "segment token {prefix}*"),
            Rule::DirectoryIndex { name } => write!(f, "directory-index {name}"),
            Rule::Substitute { prefix, from, to } => {
                let prefix: String = prefix.iter().map(|s| format!("/{s}")).collect();
                write!(
                    f,
                    "substitute {prefix}/{{{} -> {}}}/",
                    from.join("/"),
                    to.join("/")
                )
            }
            Rule::Case => f.write_str("case"),
            Rule::TrailingSlash => f.write_str("trailing-slash"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(text: &str) -> Url {
        Url::parse(text).unwrap()
    }

    fn explained(a: &str, b: &str) -> Vec<String> {
        Rule::explaining(&url(a), &url(b))
            .iter()
            .map(Rule::key)
            .collect()
    }

    #[test]
    fn each_class_of_pair_teaches_its_rule() {
        let cases = [
            ("http://h/a/1?ref=feed", "http://h/a/1", "drop-param ref"),
            (
                "http://h/a/1?id=3&sid=x",
                "http://h/a/1?id=3&sid=y",
                "drop-param sid",
            ),
            ("http://h/print/a/1", "http://h/a/1", "segment print"),
            ("http://h/a/1/amp", "http://h/a/1", "segment amp"),
            (
                "http://h/docs/index.html",
                "http://h/docs/",
                "directory-index index.html",
            ),
            (
                "http://h/sess-8f3a2b9c/item/3",
                "http://h/item/3",
                "segment token sess-*",
            ),
            (
                "http://h/sess-8f3a2b9c/item/3",
                "http://h/sess-77aa01bc/item/3",
                "segment token sess-*",
            ),
            (
                "http://h/core/arch/x86_64/fn.a.html",
                "http://h/core/arch/x86/fn.a.html",
                "substitute /core/arch/{x86_64 -> x86}/",
            ),
            (
                "http://h/core/mem/fn.swap.html",
                "http://h/std/mem/fn.swap.html",
                "substitute /{std -> core}/",
            ),
            ("http://h/Docs/Page", "http://h/docs/page", "case"),
            (
                "http://h/docs/page/",
                "http://h/docs/page",
                "trailing-slash",
            ),
        ];
        for (a, b, rule) in cases {
            assert_eq!(explained(a, b), [rule], "{a} ~ {b}");
            assert_eq!(
                explained(b, a),
                [rule],
                "the reverse pair teaches the same rule"
            );
        }
    }

    #[test]
    fn several_tracking_parameters_teach_one_rule_each() {
        assert_eq!(
            explained("http://h/a?campaign=x&ref=feed&src=mail", "http://h/a"),
            ["drop-param campaign", "drop-param ref", "drop-param src"]
        );
        assert!(
            explained("http://h/a?a=1&b=2&c=3&d=4", "http://h/a").is_empty(),
            "more than MAX_PARAMS_PER_PAIR parameters: another page"
        );
    }

    #[test]
    fn pairs_that_differ_in_two_ways_or_hosts_teach_nothing() {
        assert!(explained("http://h/print/a?ref=1", "http://h/a").is_empty());
        assert!(explained("http://h/a", "http://other/a").is_empty());
        assert!(explained("http://h/a", "http://h/a").is_empty());
        assert!(
            explained("http://h/a/b/c/d", "http://h/x/y/z/d").is_empty(),
            "three segments"
        );
    }

    #[test]
    fn a_rule_relates_the_urls_it_was_learned_from_and_not_others() {
        let rule = Rule::Substitute {
            prefix: vec!["core".into(), "arch".into()],
            from: vec!["x86_64".into()],
            to: vec!["x86".into()],
        };
        assert!(rule.relates(
            &url("http://h/core/arch/x86_64/x.html"),
            &url("http://h/core/arch/x86/x.html")
        ));
        assert!(!rule.relates(
            &url("http://h/std/arch/x86_64/x.html"),
            &url("http://h/std/arch/x86/x.html")
        ));
        let drop = Rule::DropParam {
            name: "page".into(),
        };
        assert!(drop.relates(&url("http://h/list?page=2"), &url("http://h/list?page=3")));
        assert!(drop.relates(&url("http://h/list?page=2"), &url("http://h/list")));
        assert!(!drop.relates(&url("http://h/list?page=2&q=a"), &url("http://h/list?q=b")));
        assert!(Rule::Case.relates(&url("http://h/A"), &url("http://h/a")));
        assert!(!Rule::Case.relates(&url("http://h/A?x=1"), &url("http://h/a")));
    }

    #[test]
    fn tokens_need_length_and_digits() {
        assert_eq!(
            SegmentPattern::of("sess-8f3a2b9c"),
            SegmentPattern::Token("sess-".into())
        );
        assert_eq!(
            SegmentPattern::of("a1b2c3d4e5"),
            SegmentPattern::Token(String::new())
        );
        assert_eq!(
            SegmentPattern::of("x86_64"),
            SegmentPattern::Literal("x86_64".into())
        );
        assert_eq!(
            SegmentPattern::of("articles"),
            SegmentPattern::Literal("articles".into())
        );
        assert_eq!(
            SegmentPattern::of("12345678"),
            SegmentPattern::Literal("12345678".into()),
            "an id, not a token"
        );
    }

    #[test]
    fn rules_round_trip_through_json() {
        for rule in [
            Rule::DropParam { name: "ref".into() },
            Rule::Segment {
                segment: SegmentPattern::Token("s-".into()),
            },
            Rule::Substitute {
                prefix: vec![],
                from: vec!["std".into()],
                to: vec!["core".into()],
            },
            Rule::Case,
            Rule::TrailingSlash,
        ] {
            let text = serde_json::to_string(&rule).unwrap();
            assert_eq!(serde_json::from_str::<Rule>(&text).unwrap(), rule, "{text}");
        }
    }
}
