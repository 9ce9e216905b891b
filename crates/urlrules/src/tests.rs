//! [`HostRules`] on each class of rule and each class of counterexample.

use url::Url;

use crate::{Application, Changes, HostRules, Rule, RuleSettings, RuleStatus};

fn u(text: &str) -> Url {
    Url::parse(text).unwrap()
}

fn settings() -> RuleSettings {
    RuleSettings {
        min_support: 5,
        verify_every: 100,
    }
}

/// A host that decided `pages` new, then found `pairs` (duplicate, original) in that order.
fn host_with(pages: &[String], pairs: &[(String, String)]) -> HostRules {
    let mut host = HostRules::new(settings());
    for page in pages {
        host.page_decided_new(&u(page));
    }
    for (duplicate, original) in pairs {
        host.duplicate_found(&u(duplicate), &u(original));
    }
    host
}

fn status(host: &HostRules, key: &str) -> Option<RuleStatus> {
    host.records()
        .find(|r| r.rule.key() == key)
        .map(|r| r.status)
}

fn skipped_onto(host: &mut HostRules, url: &str) -> Option<String> {
    match host.apply(&u(url)).0 {
        Application::Skip { duplicate_of, .. } => Some(duplicate_of),
        _ => None,
    }
}

/// Pages `pattern` with `{}` from 0 to `n`, and pairs of `variant` onto them.
fn class(pattern: &str, variant: &str, n: usize) -> (Vec<String>, Vec<(String, String)>) {
    let pages: Vec<String> = (0..n)
        .map(|i| pattern.replace("{}", &i.to_string()))
        .collect();
    let pairs = (0..n)
        .map(|i| (variant.replace("{}", &i.to_string()), pages[i].clone()))
        .collect();
    (pages, pairs)
}

/// Per class: pages, their variants, the rule, a variant URL and the page it maps onto.
fn rule_classes() -> [(
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    &'static str,
); 8] {
    [
        (
            "http://h/a/{}",
            "http://h/a/{}?ref=feed",
            "drop-param ref",
            "http://h/a/9?ref=x",
            "http://h/a/9",
        ),
        (
            "http://h/a/{}",
            "http://h/print/a/{}",
            "segment print",
            "http://h/print/a/9",
            "http://h/a/9",
        ),
        (
            "http://h/a/{}",
            "http://h/amp/a/{}",
            "segment amp",
            "http://h/amp/a/9",
            "http://h/a/9",
        ),
        (
            "http://h/d{}/",
            "http://h/d{}/index.html",
            "directory-index index.html",
            "http://h/d9/index.html",
            "http://h/d9/",
        ),
        (
            "http://h/item/{}",
            "http://h/sess-a1b2c3d4e{}/item/{}",
            "segment token sess-*",
            "http://h/sess-ffee0099aa/item/9",
            "http://h/item/9",
        ),
        (
            "http://h/core/arch/x86/f{}.html",
            "http://h/core/arch/x86_64/f{}.html",
            "substitute /core/arch/{x86_64 -> x86}/",
            "http://h/core/arch/x86_64/f9.html",
            "http://h/core/arch/x86/f9.html",
        ),
        (
            "http://h/Docs/P{}",
            "http://h/docs/p{}",
            "case",
            "http://h/DOCS/p9",
            "http://h/Docs/P9",
        ),
        (
            "http://h/p/{}",
            "http://h/p/{}/",
            "trailing-slash",
            "http://h/p/9/",
            "http://h/p/9",
        ),
    ]
}

#[test]
fn each_class_becomes_active_at_min_support_and_skips_onto_known_pages() {
    for (pattern, variant, key, candidate, known) in rule_classes() {
        let (pages, pairs) = class(pattern, variant, 5);
        let mut host = host_with(&pages[..4], &pairs[..4]);
        assert_eq!(
            status(&host, key),
            Some(RuleStatus::Candidate),
            "{key}: 4 pairs"
        );
        assert_eq!(
            skipped_onto(&mut host, candidate),
            None,
            "{key}: not active yet"
        );
        host.page_decided_new(&u(&pages[4]));
        host.duplicate_found(&u(&pairs[4].0), &u(&pairs[4].1));
        assert_eq!(
            status(&host, key),
            Some(RuleStatus::Active),
            "{key}: 5 pairs"
        );
        assert_eq!(
            skipped_onto(&mut host, candidate),
            None,
            "{key}: a rule never invents a URL (the page it maps onto is not known)"
        );
        host.page_decided_new(&u(known));
        assert_eq!(
            skipped_onto(&mut host, candidate).as_deref(),
            Some(known),
            "{key}"
        );
    }
}

#[test]
fn the_same_pair_again_is_not_more_support() {
    let (pages, pairs) = class("http://h/a/{}", "http://h/a/{}?ref=feed", 1);
    let mut host = host_with(&pages, &pairs);
    for _ in 0..10 {
        host.duplicate_found(&u(&pairs[0].0), &u(&pairs[0].1));
        host.duplicate_found(&u(&pairs[0].1), &u(&pairs[0].0));
    }
    assert_eq!(status(&host, "drop-param ref"), Some(RuleStatus::Candidate));
}

/// (duplicate, original) pairs.
type Pairs = Vec<(String, String)>;

/// Counterexample classes: each has enough duplicate pairs to teach its rule, and two pages
/// decided distinct that the rule maps onto each other.
fn counterexample_classes() -> [(&'static str, Vec<String>, Pairs); 4] {
    [
        (
            // `?page=1` is the list itself; `?page=2` is not.
            "drop-param page",
            (0..5)
                .flat_map(|i| {
                    [
                        format!("http://h/c{i}/list"),
                        format!("http://h/c{i}/list?page=2"),
                    ]
                })
                .collect(),
            (0..5)
                .map(|i| {
                    (
                        format!("http://h/c{i}/list?page=1"),
                        format!("http://h/c{i}/list"),
                    )
                })
                .collect(),
        ),
        (
            // Unknown ids all answer the same page; known ids are distinct items.
            "drop-param id",
            vec![
                "http://h/item?id=1".into(),
                "http://h/item?id=2".into(),
                "http://h/item?id=900".into(),
            ],
            (901..906)
                .map(|i| {
                    (
                        format!("http://h/item?id={i}"),
                        "http://h/item?id=900".into(),
                    )
                })
                .collect(),
        ),
        (
            // One-item lists look alike in every order; longer lists do not.
            "drop-param sort",
            vec![
                "http://h/big?sort=asc".into(),
                "http://h/big?sort=desc".into(),
            ]
            .into_iter()
            .chain((0..5).map(|i| format!("http://h/one{i}?sort=asc")))
            .collect(),
            (0..5)
                .map(|i| {
                    (
                        format!("http://h/one{i}?sort=desc"),
                        format!("http://h/one{i}?sort=asc"),
                    )
                })
                .collect(),
        ),
        (
            // Untranslated pages are the same in both languages; translated ones are not.
            "substitute /{en -> de}/",
            vec!["http://h/de/about".into(), "http://h/en/about".into()]
                .into_iter()
                .chain((0..5).map(|i| format!("http://h/de/p{i}")))
                .collect(),
            (0..5)
                .map(|i| (format!("http://h/en/p{i}"), format!("http://h/de/p{i}")))
                .collect(),
        ),
    ]
}

/// Each counterexample class vetoes its rule.
#[test]
fn counterexamples_veto_pagination_ids_sort_orders_and_language_prefixes() {
    for (key, pages, pairs) in counterexample_classes() {
        let mut host = host_with(&pages, &pairs);
        let record = host.records().find(|r| r.rule.key() == key).cloned();
        let record = record.unwrap_or_else(|| panic!("{key}: the pairs teach the rule"));
        assert_eq!(record.support.len(), 5, "{key}: enough support");
        assert_eq!(record.status, RuleStatus::Vetoed, "{key}");
        assert!(
            record.counterexample.is_some(),
            "{key}: the counterexample is kept"
        );
        let active = host
            .records()
            .filter(|r| r.status == RuleStatus::Active)
            .count();
        assert_eq!(active, 0, "{key}: nothing learned");
        for (duplicate, _) in &pairs {
            assert!(
                matches!(host.apply(&u(duplicate)).0, Application::Fetch),
                "{key}: {duplicate}"
            );
        }
    }
}

#[test]
fn a_counterexample_after_activation_retracts_the_rule() {
    let (pages, pairs) = class("http://h/de/p{}", "http://h/en/p{}", 5);
    let mut host = host_with(&pages, &pairs);
    let key = "substitute /{en -> de}/";
    assert_eq!(status(&host, key), Some(RuleStatus::Active));
    host.page_decided_new(&u("http://h/de/news"));
    assert!(skipped_onto(&mut host, "http://h/en/news").is_some());
    let changes = host.page_decided_new(&u("http://h/en/about"));
    assert!(changes.retracted.is_empty(), "no page to contradict it yet");
    let changes = host.page_decided_new(&u("http://h/de/about"));
    assert_eq!(
        changes.retracted.iter().map(Rule::key).collect::<Vec<_>>(),
        [key]
    );
    assert_eq!(status(&host, key), Some(RuleStatus::Retracted));
    assert_eq!(
        skipped_onto(&mut host, "http://h/en/news"),
        None,
        "no longer applied"
    );
    host.duplicate_found(&u("http://h/en/x"), &u("http://h/de/x"));
    assert_eq!(
        status(&host, key),
        Some(RuleStatus::Retracted),
        "support no longer counts"
    );
}

#[test]
fn every_verify_every_th_application_is_fetched() {
    let (pages, pairs) = class("http://h/a/{}", "http://h/a/{}?ref=feed", 5);
    let mut host = HostRules::new(RuleSettings {
        min_support: 5,
        verify_every: 3,
    });
    pages
        .iter()
        .for_each(|p| drop(host.page_decided_new(&u(p))));
    pairs
        .iter()
        .for_each(|(d, o)| drop(host.duplicate_found(&u(d), &u(o))));
    let kinds: Vec<&str> = (0..6)
        .map(
            |i| match host.apply(&u(&format!("http://h/a/{}?ref=v{i}", i % 5))).0 {
                Application::Skip { .. } => "skip",
                Application::Verify { .. } => "verify",
                Application::Fetch => "fetch",
            },
        )
        .collect();
    assert_eq!(kinds, ["skip", "skip", "verify", "skip", "skip", "verify"]);
    // The verified URL turns out distinct (decided new): the rule is retracted.
    let changes = host.page_decided_new(&u("http://h/a/2?ref=v2"));
    assert_eq!(changes.retracted, [Rule::DropParam { name: "ref".into() }]);
}

#[test]
fn a_host_loaded_from_its_records_and_pages_decides_alike() {
    let (pages, pairs) = class("http://h/a/{}", "http://h/print/a/{}", 5);
    let mut host = host_with(&pages, &pairs);
    let records: Vec<_> = host.records().cloned().collect();
    let (mut loaded, changes) = HostRules::load(settings(), records.clone(), pages.clone());
    assert_eq!(changes, Changes::default(), "nothing contradicts the rule");
    for candidate in ["http://h/print/a/3", "http://h/print/a/77", "http://h/a/3"] {
        assert_eq!(
            host.apply(&u(candidate)).0,
            loaded.apply(&u(candidate)).0,
            "{candidate}"
        );
    }
    assert!(loaded.is_page("http://h/a/3"));
    let changes = loaded.page_decided_new(&u("http://h/print/a/3"));
    assert_eq!(
        changes.retracted.len(),
        1,
        "the loaded pages contradict the rule"
    );
}

#[test]
fn a_rule_maps_only_what_it_changes() {
    let (pages, pairs) = class("http://h/a/{}", "http://h/print/a/{}", 5);
    let mut host = host_with(&pages, &pairs);
    host.page_decided_new(&u("http://h/ref/3"));
    host.page_decided_new(&u("http://h/docs/"));
    assert_eq!(
        skipped_onto(&mut host, "http://h/ref/3/"),
        None,
        "nothing of slashes"
    );
    assert_eq!(skipped_onto(&mut host, "http://h/docs/index.html"), None);
    assert_eq!(
        skipped_onto(&mut host, "http://h/print/ref/3").as_deref(),
        Some("http://h/ref/3")
    );
}

#[test]
fn an_application_names_the_rule_that_maps_the_url_alone() {
    let (mut pages, mut pairs) = class("http://h/d{}/", "http://h/d{}/index.html", 5);
    let (slash_pages, slash_pairs) = class("http://h/p/{}", "http://h/p/{}/", 5);
    pages.extend(slash_pages);
    pairs.extend(slash_pairs);
    let mut host = host_with(&pages, &pairs);
    host.page_decided_new(&u("http://h/d9/"));
    let (application, _) = host.apply(&u("http://h/d9/index.html"));
    let Application::Skip { rules, .. } = application else {
        panic!("{application:?}");
    };
    assert_eq!(
        rules.iter().map(Rule::key).collect::<Vec<_>>(),
        ["directory-index index.html"]
    );
}

/// A rule learned from re-exported items (`/ffi/c_str/struct.X.html` is `/ffi/struct.X.html`)
/// leaves a directory page's own directory alone: `/ffi/c_str/index.html` lists another
/// directory than `/ffi/index.html` (both distinct), so it is fetched, not mapped onto it;
/// the same for a substitution (`/arch/{x86_64 -> x86}/index.html`).
#[test]
fn directory_pages_keep_their_own_directory() {
    for (pattern, variant, key, index, parent) in [
        (
            "http://h/std/ffi/struct.T{}.html",
            "http://h/std/ffi/c_str/struct.T{}.html",
            "segment c_str",
            "http://h/std/ffi/c_str/index.html",
            "http://h/std/ffi/index.html",
        ),
        (
            "http://h/core/arch/x86/fn.f{}.html",
            "http://h/core/arch/x86_64/fn.f{}.html",
            "substitute /core/arch/{x86_64 -> x86}/",
            "http://h/core/arch/x86_64/",
            "http://h/core/arch/x86/",
        ),
    ] {
        let (mut pages, pairs) = class(pattern, variant, 6);
        pages.push(parent.to_string());
        let mut host = host_with(&pages, &pairs);
        assert_eq!(status(&host, key), Some(RuleStatus::Active), "{key}");
        assert_eq!(skipped_onto(&mut host, index), None, "{key}: {index}");
        let item = variant.replace("{}", "5");
        let original = pattern.replace("{}", "5");
        assert_eq!(
            Rule::explaining(&u(&item), &u(&original))
                .iter()
                .map(Rule::key)
                .collect::<Vec<_>>(),
            [key],
            "items still teach the rule"
        );
        host.page_decided_new(&u(index));
        assert_eq!(
            status(&host, key),
            Some(RuleStatus::Active),
            "{key}: the two directory pages are no counterexample"
        );
    }
}

/// A rule learned on items of one kind (`struct.*.html` re-exported under `poison/`) does
/// not skip an item of another kind (`enum.*.html`): that application is a verification; a
/// duplicate adds the kind, a distinct page retracts the rule.
#[test]
fn a_rule_holds_for_the_shapes_its_pairs_had() {
    let (mut pages, pairs) = class(
        "http://h/std/sync/struct.S{}.html",
        "http://h/std/sync/poison/struct.S{}.html",
        6,
    );
    pages.extend([
        "http://h/std/sync/enum.E1.html".to_string(),
        "http://h/std/sync/enum.E2.html".to_string(),
        "http://h/std/sync/struct.S9.html".to_string(),
    ]);
    let mut host = host_with(&pages, &pairs);
    assert_eq!(status(&host, "segment poison"), Some(RuleStatus::Active));
    assert_eq!(
        skipped_onto(&mut host, "http://h/std/sync/poison/struct.S9.html").as_deref(),
        Some("http://h/std/sync/struct.S9.html"),
        "a shape the pairs had: skipped"
    );
    let enum_url = u("http://h/std/sync/poison/enum.E1.html");
    assert!(
        matches!(host.apply(&enum_url).0, Application::Verify { .. }),
        "another shape: fetched to verify"
    );
    host.duplicate_found(&enum_url, &u("http://h/std/sync/enum.E1.html"));
    assert_eq!(
        skipped_onto(&mut host, "http://h/std/sync/poison/enum.E2.html").as_deref(),
        Some("http://h/std/sync/enum.E2.html"),
        "a duplicate of that shape teaches it"
    );
    let mut other = host_with(&pages, &pairs);
    let changes = other.page_decided_new(&u("http://h/std/sync/poison/enum.E1.html"));
    assert_eq!(
        status(&other, "segment poison"),
        Some(RuleStatus::Retracted),
        "the verification found a distinct page: {changes:?}"
    );
}
