//! The shipped config files parse and validate; bad keys and values are clear errors.

use std::path::PathBuf;

use dedupcrawl_crawler::{ConfigOverrides, CrawlConfig, CrawlError, NearDuplicatePolicy};

fn config_file(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../config")
        .join(name)
}

#[test]
fn default_toml_parses_to_the_built_in_defaults() {
    let parsed = CrawlConfig::load(&config_file("default.toml")).expect("default.toml parses");
    assert_eq!(
        parsed,
        CrawlConfig::default(),
        "default.toml must document the real defaults"
    );
}

#[test]
fn sites_toml_parses_and_validates() {
    let config = CrawlConfig::load(&config_file("sites.toml")).expect("sites.toml parses");
    config.validate().expect("sites.toml is valid");
    assert_eq!(config.site.len(), 3);
    assert_eq!(
        config.archive.near_duplicates,
        NearDuplicatePolicy::Metadata
    );
    let sites = config.sites().expect("sites resolve");
    assert_eq!(sites[0].name, "rust-book");
    assert_eq!(sites[0].threshold, 0.9);
    assert_eq!(sites[0].scope.max_depth, Some(3));
    assert_eq!(sites[1].delay.as_secs_f64(), 2.0);
    assert_eq!(
        sites[2].scope.allowed_hosts,
        vec![
            "www.example.com".to_string(),
            "blog.example.com".to_string()
        ]
    );
    // the index uses the lowest threshold of all sites
    assert_eq!(config.index_dedup_settings(&sites).threshold, 0.8);
}

#[test]
fn unknown_keys_are_errors_naming_the_key() {
    let error = CrawlConfig::from_toml_str("[crawl]\nconcurency = 4\n").unwrap_err();
    let message = error.to_string();
    assert!(message.contains("concurency"), "{message}");
    let error =
        CrawlConfig::from_toml_str("[[site]]\nseeds = [\"http://a.example/\"]\ndelay_s = 1\n")
            .unwrap_err();
    assert!(error.to_string().contains("delay_s"), "{error}");
    let error = CrawlConfig::from_toml_str("[dedup]\nthreshhold = 0.5\n").unwrap_err();
    assert!(error.to_string().contains("threshhold"), "{error}");
}

#[test]
fn bad_values_are_errors_naming_the_key() {
    let check = |toml: &str, key: &str| {
        let result = CrawlConfig::from_toml_str(toml).and_then(|c| c.validate());
        match result {
            Err(error) => assert!(error.to_string().contains(key), "{key}: {error}"),
            Ok(()) => panic!("{toml:?} should be rejected"),
        }
    };
    let seeds = "[crawl]\nseeds = [\"http://a.example/\"]\n";
    check(&format!("{seeds}concurrency = 0\n"), "crawl.concurrency");
    check(&format!("{seeds}delay = -1.0\n"), "crawl.delay");
    check("[crawl]\nconcurrency = \"many\"\n", "concurrency");
    check(
        &format!("{seeds}[dedup]\nthreshold = 1.5\n"),
        "dedup.threshold",
    );
    check(
        &format!("{seeds}[fetch]\nread_timeout = 0.0\n"),
        "fetch.read_timeout",
    );
    check(
        &format!("{seeds}[fetch]\noversize = \"drop\"\n"),
        "oversize",
    );
    check("[crawl]\nseeds = [\"ftp://a.example/\"]\n", "crawl.seeds");
    check(
        &format!(
            "{seeds}[store]\nurl = \"postgres://db.example/crawls\"\ncrawl = \"c\"\n\
             lease_seconds = 0.1\n"
        ),
        "store.lease_seconds",
    );
    check(
        &format!(
            "{seeds}[store]\nurl = \"postgres://db.example/crawls\"\ncrawl = \"c\"\n\
             reconnect_seconds = -1.0\n"
        ),
        "store.reconnect_seconds",
    );
    check(
        "[[site]]\nseeds = [\"http://a.example/\"]\nthreshold = 0\n",
        "site[0].threshold",
    );
    check(
        "[[site]]\nseeds = [\"http://a.example/\"]\ndeny_patterns = [\"(\"]\n",
        "site[0].deny_patterns",
    );
    check("[crawl]\nout = \"x\"\n", "seeds");
    check(
        &format!("{seeds}max_memory_mb = 16\n"),
        "crawl.max_memory_mb",
    );
    check(
        &format!("{seeds}public_addresses = [\"not an address\"]\n"),
        "public_addresses",
    );
    check(
        &format!("{seeds}soft_404_probes = 9\n"),
        "crawl.soft_404_probes",
    );
    check(
        &format!("{seeds}soft_404_resemblance = 0.0\n"),
        "crawl.soft_404_resemblance",
    );
    check(
        &format!("{seeds}soft_404_resemblance = 1.5\n"),
        "crawl.soft_404_resemblance",
    );
    check(
        &format!("{seeds}[url_rules]\nmin_support = 0\n"),
        "url_rules.min_support",
    );
    check(
        &format!("{seeds}[url_rules]\nverify_every = 0\n"),
        "url_rules.verify_every",
    );
    check(&format!("{seeds}[url_rules]\nsupport = 3\n"), "support");
    check(
        &format!("{seeds}[archive]\ngzip_level = 0\n"),
        "archive.gzip_level",
    );
    check(
        &format!("{seeds}[archive]\ngzip_level = 10\n"),
        "archive.gzip_level",
    );
}

#[test]
fn flags_override_keys() {
    let mut config = CrawlConfig::load(&config_file("sites.toml")).expect("parses");
    config.apply(ConfigOverrides {
        seeds: vec!["http://127.0.0.1:9/".into()],
        out: Some("elsewhere".into()),
        delay: Some(0.25),
        concurrency: Some(3),
        per_host: Some(2),
        max_pages: Some(7),
        max_depth: Some(1),
        threshold: Some(0.7),
        user_agent: Some("tester/1.0".into()),
        store: Some("postgres://u@127.0.0.1:5432/db".into()),
        crawl_name: Some("docs".into()),
        url_rules: Some(false),
    });
    config.validate().expect("valid");
    assert!(!config.crawl.url_rules, "--url-rules off");
    assert_eq!(
        config.store.url.as_deref(),
        Some("postgres://u@127.0.0.1:5432/db")
    );
    assert_eq!(config.store.crawl.as_deref(), Some("docs"));
    assert_eq!(config.crawl.out, PathBuf::from("elsewhere"));
    assert_eq!(config.crawl.concurrency, 3);
    assert_eq!(config.crawl.per_host, 2);
    assert_eq!(config.crawl.max_pages, Some(7));
    assert_eq!(config.crawl.user_agent, "tester/1.0");
    let sites = config.sites().expect("sites");
    assert_eq!(sites.len(), 4, "the --seed site plus the three [[site]]s");
    for site in &sites {
        assert_eq!(site.delay.as_secs_f64(), 0.25);
        assert_eq!(site.scope.max_depth, Some(1));
        assert_eq!(site.threshold, 0.7);
    }
}

#[test]
fn config_errors_are_typed() {
    let error = CrawlConfig::load(&config_file("does-not-exist.toml")).unwrap_err();
    assert!(matches!(error, CrawlError::ConfigRead { .. }));
}

#[test]
fn a_postgres_store_needs_a_crawl_name_and_a_postgres_url() {
    let mut config = CrawlConfig::default();
    config.crawl.seeds = vec!["http://127.0.0.1:9/".into()];
    config.store.url = Some("postgres://u@127.0.0.1:5432/db".into());
    let error = config.validate().unwrap_err().to_string();
    assert!(
        error.contains("store.crawl") && error.contains("--crawl"),
        "{error}"
    );
    config.store.crawl = Some("docs".into());
    config.validate().expect("valid with a crawl name");
    config.store.url = Some("mysql://u@h/db".into());
    let error = config.validate().unwrap_err().to_string();
    assert!(error.contains("store.url"), "{error}");
}
