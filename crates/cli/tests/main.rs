//! The integration tests of the `dedupcrawl` command: one test binary (each file of tests/ is a
//! module of it), linked once instead of once per file.

#[path = "../../crawler/tests/common/mod.rs"]
mod common;
mod support;

mod archive_faults;
mod archive_roundtrip;
mod changes_html;
mod compose_workers;
mod crawl_exit_status;
mod crawl_progress_lines;
mod crawl_quiet;
mod dashboard_browser;
mod dashboard_cells;
mod dedup_cli;
mod dedup_export_progress_lines;
mod dedup_warc;
mod fault_suite;
mod interrupts;
mod link_flood_rss;
mod multi_out;
mod overlap_cli;
mod pywb_replay;
mod readme_commands;
mod recrawl_cli;
mod refused_starts;
mod schedule_cli;
mod seed_credentials;
mod state_faults;
mod url_rules;
mod wget_vs_crawl;
mod why_decisions;
mod why_recrawl_decisions;
