//! `crawl.render = "auto"` with Debian's Chromium on [`SpaSite`]: the app's shells are
//! rendered, their rendered text archived as WARC `conversion` records referring to the
//! responses as fetched, and the links the app's script writes followed; a page whose script
//! only decorates its text is not rendered; a page that never settles is taken at the
//! deadline; a request to another host is blocked. With `never` the app's pages are not
//! reached: the case tests the mechanism.

use dedupcrawl_archive::RecordType;
use dedupcrawl_crawler::{Decision, LogLine, RenderMode, run_crawl};
use dedupcrawl_testsite::SpaSite;

use crate::common;

async fn crawl(site: &SpaSite, mode: RenderMode, out: &std::path::Path) -> Vec<LogLine> {
    let seeds = vec![
        site.seed(),
        site.url("/decorated"),
        site.url("/never-settles"),
        site.url("/reaches-out"),
    ];
    let mut config = common::config_for(seeds, out);
    config.crawl.render = mode;
    config.render.deadline = 4.0;
    config.render.settle = 0.3;
    config.crawl.sitemaps = false;
    config.crawl.soft_404_probes = 0;
    run_crawl(config).await.expect("crawl runs");
    common::crawl_log(out)
}

#[test]
fn auto_renders_app_shells_and_follows_the_links_their_script_writes() {
    common::runtime().block_on(async {
        let site = SpaSite::start().await.expect("site starts");
        let dir = tempfile::tempdir().expect("tempdir");
        let out = dir.path().join("out");
        let lines = crawl(&site, RenderMode::Auto, &out).await;
        let records = common::read_warcs(&out);
        let conversion_of = |url: &str| {
            records
                .iter()
                .find(|r| r.record_type == RecordType::Conversion && r.target_uri == url)
                .map(|r| String::from_utf8_lossy(&r.payload).to_string())
        };
        for (n, url) in std::iter::once(site.seed())
            .chain(site.app_pages())
            .enumerate()
        {
            let line = common::line_for(&lines, &url);
            assert_eq!(line.decision, Decision::Archived, "{line:?}");
            assert_eq!(line.rendered, Some(true), "{line:?}");
            let dom =
                conversion_of(&url).unwrap_or_else(|| panic!("no conversion record of {url}"));
            assert!(dom.contains(&SpaSite::app_title(n)), "{url}: {dom}");
            let response = records
                .iter()
                .find(|r| r.record_type == RecordType::Response && r.target_uri == url)
                .expect("response as fetched");
            assert!(!String::from_utf8_lossy(&response.payload).contains(&SpaSite::app_title(n)));
            let conversion = records
                .iter()
                .find(|r| r.record_type == RecordType::Conversion && r.target_uri == url)
                .expect("conversion");
            assert_eq!(
                conversion.header("WARC-Refers-To"),
                response.header("WARC-Record-ID"),
                "the conversion refers to the response"
            );
        }
        let decorated = common::line_for(&lines, &site.url("/decorated"));
        assert_eq!(
            decorated.rendered, None,
            "a page with its text is not rendered: {decorated:?}"
        );
        let polling = common::line_for(&lines, &site.url("/never-settles"));
        assert!(
            polling
                .note
                .as_deref()
                .is_some_and(|n| n.contains("render.deadline")),
            "{polling:?}"
        );
        let reaching = site.url("/reaches-out");
        let dom = conversion_of(&reaching).expect("the reaching page is rendered");
        assert!(dom.contains("other host blocked"), "{dom}");
        let line = common::line_for(&lines, &reaching);
        assert!(
            line.note
                .as_deref()
                .is_some_and(|n| n.contains("1 blocked")),
            "{line:?}"
        );

        // Run again on the same OUT: the archive check at the start reads the conversion
        // records as whole, and nothing is rendered or written twice.
        let conversions = |records: &[common::Stored]| {
            records
                .iter()
                .filter(|r| r.record_type == RecordType::Conversion)
                .count()
        };
        let before = conversions(&records);
        let again = crawl(&site, RenderMode::Auto, &out).await;
        assert_eq!(again.len(), lines.len(), "no line logged twice");
        assert_eq!(conversions(&common::read_warcs(&out)), before);
    });
}

#[test]
fn never_rendering_reaches_no_page_of_the_app() {
    common::runtime().block_on(async {
        let site = SpaSite::start().await.expect("site starts");
        let dir = tempfile::tempdir().expect("tempdir");
        let out = dir.path().join("out");
        let lines = crawl(&site, RenderMode::Never, &out).await;
        for url in site.app_pages() {
            assert!(lines.iter().all(|line| line.url != url), "{url} reached");
        }
        assert!(lines.iter().all(|line| line.rendered.is_none()));
    });
}
