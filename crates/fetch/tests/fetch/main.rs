//! Integration tests of dedupcrawl-fetch against real servers on 127.0.0.1.
//! One test binary (faster to build than one per file).

mod basics;
mod common;
mod encodings;
mod failures;
mod resolve;
