//! `report.json`'s `cpu`: a crawl of the fixture site's main host reports the CPU its pages
//! spent in every stage (each stage ran on some page: pages were parsed, their main content
//! decided, sketched, indexed, archived, their links offered and their lines logged), and the
//! stages' sum stays within the process's CPU.

use dedupcrawl_crawler::{CrawlReport, run_crawl};
use dedupcrawl_stagecpu::Stage;
use dedupcrawl_testsite::TestSite;

use crate::common;

#[test]
fn the_report_gives_the_cpu_of_every_stage_within_the_process_cpu() {
    common::runtime().block_on(async {
        let site = TestSite::start_with(common::site_options())
            .await
            .expect("site starts");
        let dir = tempfile::tempdir().expect("tempdir");
        let out = dir.path().join("out");
        let mut config = common::config_for(vec![site.main_url()], &out);
        config.crawl.max_pages = Some(40);
        let report = run_crawl(config).await.expect("crawl runs");
        let written: CrawlReport =
            serde_json::from_slice(&std::fs::read(out.join("report.json")).expect("report.json"))
                .expect("report.json parses");
        let cpu = written.cpu.expect("report.json has the run's cpu");
        assert_eq!(cpu, report.cpu.expect("the report has the run's cpu"));
        assert!(
            cpu.stages.pages >= report.total.archived && cpu.stages.pages > 0,
            "{cpu:?}"
        );
        for stage in Stage::ALL {
            assert!(
                cpu.stages.seconds(stage) > 0.0,
                "{stage:?} has no CPU: {cpu:?}"
            );
        }
        let stages: f64 = cpu.stages.seconds.values().sum();
        assert!(stages <= cpu.process_seconds, "{cpu:?}");
    });
}
