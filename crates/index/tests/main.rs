//! The integration tests of dedupcrawl-index: one test binary (each file of tests/ is a
//! module of it), linked once instead of once per file.

// Its `dedup_index_suite!` is invoked by the modules below.
#[macro_use]
mod index_suite;
mod postgres_support;

mod index;
mod postgres_index;
