//! The integration tests of dedupcrawl-pipeline: one test binary (each file of tests/ is a
//! module of it), linked once instead of once per file.

mod common;

mod boilerplate;
mod card_boxes;
mod cold_records;
mod pager_lines;
mod template_only_pages;
