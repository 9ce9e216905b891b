//! The integration tests of dedupcrawl-frontier: one test binary (each file of tests/ is a
//! module of it), linked once instead of once per file.

#[path = "../../index/tests/postgres_support/commit_cutter.rs"]
mod commit_cutter;
mod postgres_support;
// Its `frontier_store_suite!` is invoked by the modules below.
#[macro_use]
mod store_suite;

mod canonical_idempotence;
mod frontier;
mod fuzz_regressions;
mod kill;
mod million;
mod postgres_frontier;
mod postgres_schema;
