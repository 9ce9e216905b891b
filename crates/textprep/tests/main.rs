//! The integration tests of dedupcrawl-textprep: one test binary (each file of tests/ is a
//! module of it), linked once instead of once per file.

mod common;

mod attribute_floods;
mod code_alone;
mod cold_start;
mod deep_pages;
mod extraction;
mod host_model;
mod language;
mod layout_wrappers;
mod link_cap;
mod link_classes;
mod new_template;
mod path_evidence;
mod settled_view;
mod text_verdicts;
