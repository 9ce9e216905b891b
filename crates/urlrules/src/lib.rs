//! URL rules learned from duplicates ("Do not crawl in the DUST", Bar-Yossef, Keidar and
//! Schonfeld, WWW 2007): from pairs (duplicate URL, original URL) that a crawler found to
//! have the same content, learn per-host rewrite rules, and apply them to URLs before they
//! are fetched, so that a URL a rule maps onto a page already held is not fetched.
//!
//! * [`Rule`]: the kinds of rules, each an equivalence on a host's URLs given by a normal form
//!   — drop a query parameter, insert or remove a path segment (`print`, `amp`, a session
//!   token), name a directory's index file or not (`index.html`), substitute one run of path
//!   segments for another after a common prefix
//!   (`/core/arch/x86_64/` → `/core/arch/x86/`), path case, trailing slash.
//! * [`HostRules`]: one host's rules and evidence. A rule becomes active with
//!   [`RuleSettings::min_support`] distinct duplicate pairs and no counterexample (two pages
//!   decided new that it maps onto each other); a later counterexample retracts it; one in
//!   [`RuleSettings::verify_every`] applications is to be fetched anyway, and so is every
//!   application to a URL whose last segment has a [shape](leaf_shape) none of the rule's
//!   pairs had (`enum.*.html` for a rule learned on `struct.*.html` pages).
//!
//! The crate does no I/O: the caller stores [`RuleRecord`]s and the pages decided new, and
//! hands them back to [`HostRules::load`]; every call returns the [`Changes`] to store.
//!
//! ```
//! use dedupcrawl_urlrules::{Application, HostRules, RuleSettings};
//! use url::Url;
//!
//! let u = |s: &str| Url::parse(s).unwrap();
//! let mut host = HostRules::new(RuleSettings { min_support: 2, verify_every: 10 });
//! for n in 1..=2 {
//!     let article = u(&format!("http://news.example/a/{n}"));
//!     host.page_decided_new(&article);
//!     host.duplicate_found(&u(&format!("http://news.example/a/{n}?ref=feed")), &article);
//! }
//! host.page_decided_new(&u("http://news.example/a/3"));
//! let (application, _) = host.apply(&u("http://news.example/a/3?ref=home"));
//! assert!(matches!(application, Application::Skip { ref duplicate_of, .. }
//!     if duplicate_of == "http://news.example/a/3"));
//! // A rule never invents URLs: nothing known to map onto, nothing skipped.
//! let (application, _) = host.apply(&u("http://news.example/a/4?ref=home"));
//! assert_eq!(application, Application::Fetch);
//! ```
#![deny(missing_docs)]

mod figures;
mod host_rules;
mod rule;
mod url_parts;

#[cfg(test)]
mod tests;

pub use figures::RuleFigures;
pub use host_rules::{
    Application, Changes, DEFAULT_MIN_SUPPORT, DEFAULT_VERIFY_EVERY, HostRules, RuleRecord,
    RuleSettings, RuleStatus, UrlPair,
};
pub use rule::{
    MAX_PARAMS_PER_PAIR, MAX_SUBSTITUTED_SEGMENTS, MIN_TOKEN_CHARS, Rule, SegmentPattern,
};
pub use url_parts::leaf_shape;
