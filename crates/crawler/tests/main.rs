//! The integration tests of dedupcrawl-crawler: one test binary (each file of tests/ is a
//! module of it), linked once instead of once per file. Two are binaries of their own:
//! `postgres_restart.rs` stops the PostgreSQL server that the other PostgreSQL tests use, and
//! `hostile_servers.rs` bounds the peak resident set of its whole process.

mod common;

mod broken_hosts;
mod config;
mod crawl;
mod cut_short;
mod dedup_classes;
mod dedup_varied;
mod disk_full;
mod duplicate_links;
mod fuzz_corpus;
mod hostile_pages;
mod kill_trials;
mod observe_metrics;
mod policies;
mod postgres_crawl;
mod recrawl;
mod recrawl_kill;
mod render;
mod restarted_host;
mod resume;
mod script_links;
mod soft_404;
mod stage_cpu;
mod unreachable;
mod unresolved_name;
