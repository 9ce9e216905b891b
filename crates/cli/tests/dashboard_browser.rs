//! The dashboard in headless Chromium (Debian's `chromium`, installed by
//! scripts/install-test-tools): during a fixture crawl with `--serve` the page shows the crawl
//! running with pages counted; after it, `serve OUT` shows totals equal to `report.json`, its
//! clusters browser lists the clusters `dedupcrawl clusters` finds, the search finds a cluster
//! by a member's URL, and a member's link (`#why=URL`) shows what `why OUT URL --json` says. A
//! screenshot (search and why panel open) goes to `CARGO_TARGET_TMPDIR/dashboard.png`.

use crate::support;

use std::net::SocketAddr;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use dedupcrawl_crawler::CrawlReport;
use dedupcrawl_testsite::{TestSite, TestSiteOptions};
use support::browser::{CHROMIUM_FLAGS, free_address, wait_for};

const CONFIG: &str = "[crawl]\nprogress = false\n\n[fetch]\nconnect_timeout = 1.0\n\
                      read_timeout = 1.0\ntotal_timeout = 2.0\nretry_backoff = 0.2\n\
                      max_retry_after = 5.0\nrobots_retry = 1.0\nmax_body_bytes = 2097152\n";

/// The page's DOM after its scripts ran.
fn dom(address: SocketAddr) -> String {
    dom_of(&format!("http://{address}/"))
}

fn dom_of(page: &str) -> String {
    let output = Command::new("chromium")
        .args(CHROMIUM_FLAGS)
        .args(["--virtual-time-budget=3000", "--dump-dom"])
        .arg(page)
        .output()
        .expect("run chromium (scripts/install-test-tools installs it)");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// The URL as JavaScript's encodeURIComponent writes it (the fixture's URLs have no
/// characters the two encode differently).
fn encoded(url: &str) -> String {
    url::form_urlencoded::byte_serialize(url.as_bytes()).collect()
}

/// The value of the totals card `key`.
fn card(dom: &str, key: &str) -> Option<u64> {
    let start = dom.find(&format!("data-key=\"{key}\""))?;
    let rest = &dom[start..];
    let value = rest.split("class=\"value\">").nth(1)?;
    value.split('<').next()?.trim().parse().ok()
}

#[test]
fn the_dashboard_shows_the_crawl_live_and_its_totals_equal_the_report() {
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let site = runtime
        .block_on(TestSite::start_with(TestSiteOptions {
            crawl_delay: Some(0.1),
            retry_after_secs: 1,
            slow_delay: Duration::from_secs(3),
            huge_bytes: 30 * 1024 * 1024,
            separate_ips: true,
        }))
        .expect("site starts");
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out");
    let config = dir.path().join("crawl.toml");
    std::fs::write(&config, CONFIG).expect("config");
    let live = free_address();
    let mut crawl = Command::new(env!("CARGO_BIN_EXE_dedupcrawl"))
        .arg("crawl")
        .arg("--config")
        .arg(&config)
        .arg("--out")
        .arg(&out)
        .args(["--delay", "0", "--serve"])
        .arg(live.to_string())
        .arg("--seed")
        .arg(site.main_url())
        .arg("--seed")
        .arg(site.host_b_url())
        .spawn()
        .expect("start crawl");
    wait_for(live, &mut crawl);
    let during = dom(live);
    let running_now = crawl.try_wait().expect("crawl").is_none();
    assert!(running_now, "the crawl outlived the first page load");
    assert!(during.contains(">running<"), "{during}");
    assert!(card(&during, "fetched").is_some_and(|n| n > 0), "{during}");
    assert!(
        during.contains("clusters</span>"),
        "live clusters browser: {during}"
    );
    assert!(crawl.wait().expect("crawl").success());

    let report: CrawlReport =
        serde_json::from_slice(&std::fs::read(out.join("report.json")).expect("report"))
            .expect("report parses");
    let after = free_address();
    let mut serve = Command::new(env!("CARGO_BIN_EXE_dedupcrawl"))
        .arg("serve")
        .arg(&out)
        .arg("--listen")
        .arg(after.to_string())
        .spawn()
        .expect("start serve");
    wait_for(after, &mut serve);
    let finished = dom(after);
    let clusters_jsonl = dir.path().join("clusters.jsonl");
    let clusters_html = dir.path().join("clusters.html");
    support::run(
        Command::new(env!("CARGO_BIN_EXE_dedupcrawl"))
            .arg("clusters")
            .arg(&out)
            .arg("--jsonl")
            .arg(&clusters_jsonl)
            .arg("--html")
            .arg(&clusters_html),
    );
    let clusters: Vec<serde_json::Value> = std::fs::read_to_string(&clusters_jsonl)
        .expect("clusters.jsonl")
        .lines()
        .map(|line| serde_json::from_str(line).expect("a cluster"))
        .collect();
    assert!(clusters.len() >= 2, "the fixture crawl has clusters");
    let count = clusters.len();
    assert!(
        finished.contains(&format!("{count} of {count} clusters</span>")),
        "{finished}"
    );
    for cluster in clusters.iter().take(20) {
        let representative = cluster["representative"].as_str().expect("representative");
        assert!(
            finished.contains(&format!("href=\"#why={}\"", encoded(representative))),
            "cluster of {representative} listed: {finished}"
        );
    }
    // The search: the largest cluster's first member, by its path alone.
    let cluster = &clusters[0];
    let member = cluster["members"][0]["url"].as_str().expect("a member");
    let path = url::Url::parse(member)
        .expect("member URL")
        .path()
        .to_string();
    let searched = dom_of(&format!("http://{after}/?q={}", encoded(&path)));
    let matching: usize = clusters
        .iter()
        .filter(|c| c.to_string().contains(&path))
        .count();
    assert!(
        searched.contains(&format!("{matching} of {count} clusters</span>")),
        "search {path}: {searched}"
    );
    let member_link = format!("href=\"#why={}\"", encoded(member));
    assert!(searched.contains(&member_link), "{searched}");
    // The member's link shows its why, as `why OUT URL --json` has it.
    let why_page = format!(
        "http://{after}/?q={}#why={}",
        encoded(&path),
        encoded(member)
    );
    let shown = dom_of(&why_page);
    let decision = cluster["members"][0]["decision"]
        .as_str()
        .expect("decision");
    assert!(
        shown.contains(&format!("data-key=\"decision\">{decision}</dd>")),
        "{shown}"
    );
    assert!(
        shown.contains(&format!(
            "data-key=\"duplicate of\">{}</dd>",
            cluster["members"][0]["duplicate_of"].as_str().expect("of")
        )),
        "{shown}"
    );
    let cli_why: serde_json::Value = serde_json::from_slice(
        &support::run(
            Command::new(env!("CARGO_BIN_EXE_dedupcrawl"))
                .args(["why", "--json"])
                .arg(&out)
                .arg(member),
        )
        .stdout,
    )
    .expect("why --json");
    let api_why: serde_json::Value = serde_json::from_str(&support::http_get(
        after,
        &format!("/api/why?crawl=0&url={}", encoded(member)),
    ))
    .expect("/api/why is JSON");
    assert_eq!(api_why, cli_why);
    let changes: serde_json::Value =
        serde_json::from_str(&support::http_get(after, "/api/changes?crawl=0"))
            .expect("/api/changes");
    assert_eq!(changes["round"], 1);
    assert!(finished.contains("Not a recrawl"), "{finished}");
    let screenshot = Path::new(env!("CARGO_TARGET_TMPDIR")).join("dashboard.png");
    let shot = Command::new("chromium")
        .args(CHROMIUM_FLAGS)
        .args(["--virtual-time-budget=3000", "--window-size=1300,1400"])
        .arg(format!("--screenshot={}", screenshot.display()))
        .arg(&why_page)
        .output()
        .expect("screenshot");
    let _ = serve.kill();
    let _ = serve.wait();
    assert!(shot.status.success() && screenshot.exists(), "screenshot");
    assert!(finished.contains(">finished<"), "{finished}");
    let total = &report.total;
    for (key, expected) in [
        ("fetched", total.fetched),
        ("archived", total.archived),
        ("exact_duplicates", total.exact_duplicates),
        ("near_duplicates", total.near_duplicates),
        ("contained", total.contained),
        ("errors", total.errors),
        ("robots_disallowed", total.robots_disallowed),
        ("out_of_scope", total.out_of_scope),
        ("filtered", total.filtered),
        ("bytes_saved", total.bytes_saved),
    ] {
        assert_eq!(card(&finished, key), Some(expected), "{key}");
    }
}
