//! The integration tests of dedupcrawl-archive: one test binary (each file of tests/ is a
//! module of it), linked once instead of once per file.

mod common;

mod cdxj_compat;
mod foreign_warcs;
mod rotation_and_repair;
mod warcio_roundtrip;
