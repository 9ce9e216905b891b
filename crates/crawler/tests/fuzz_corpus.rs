//! The fuzz targets' corpora replayed as ordinary tests: every input of `fuzz/seeds/TARGET` (the
//! checked-in corpus) goes through the check the fuzz target runs (`fuzz/checks/TARGET.rs`, one
//! file for both). When `scripts/fuzz` has grown a corpus in this target directory
//! (`TARGET_DIR/fuzz/corpus/TARGET`), a deterministic sample of it is replayed too: at most
//! [`GROWN_SAMPLE`] inputs, those first in name order (libFuzzer names an input by the SHA-1 of
//! its bytes, so that is an even spread). Fuzzing itself stays in `scripts/fuzz`.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};

#[path = "../../../fuzz/checks/canonical_url.rs"]
mod canonical_url;
#[path = "../../../fuzz/checks/charset.rs"]
mod charset;
#[path = "../../../fuzz/checks/config.rs"]
mod config;
#[path = "../../../fuzz/checks/html.rs"]
mod html;
#[path = "../../../fuzz/checks/html_main_content.rs"]
mod html_main_content;
#[path = "../../../fuzz/checks/http_head.rs"]
mod http_head;
#[path = "../../../fuzz/checks/pipeline.rs"]
mod pipeline;
#[path = "../../../fuzz/checks/robots.rs"]
mod robots;
#[path = "../../../fuzz/checks/sitemap.rs"]
mod sitemap;
#[path = "../../../fuzz/checks/warc_reader.rs"]
mod warc_reader;

/// Inputs replayed from a grown corpus, per target: the `pipeline` check takes ~0.1 s an input
/// and a corpus grows to thousands.
const GROWN_SAMPLE: usize = 200;

/// The files of `dir` in name order; none when it does not exist.
fn inputs(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .map(|entry| entry.expect("a corpus directory entry").path())
        .filter(|path| path.is_file())
        .collect();
    files.sort();
    files
}

/// Runs `check` on every seed of `target` and on the sample of its grown corpus; fails naming
/// the first input the check fails on.
fn replay(target: &str, check: fn(&[u8])) {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let seeds = inputs(&workspace.join("fuzz/seeds").join(target));
    assert!(
        !seeds.is_empty(),
        "no seeds in fuzz/seeds/{target}: the replay would check nothing"
    );
    // CARGO_TARGET_TMPDIR is TARGET_DIR/tmp; scripts/fuzz grows TARGET_DIR/fuzz/corpus.
    let grown_dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .expect("the target directory")
        .join("fuzz/corpus")
        .join(target);
    let grown = inputs(&grown_dir);
    let grown_count = grown.len();
    for path in seeds.iter().chain(grown.iter().take(GROWN_SAMPLE)) {
        let data = std::fs::read(path).expect("a corpus input reads");
        if let Err(panic) = catch_unwind(AssertUnwindSafe(|| check(&data))) {
            let message = panic
                .downcast_ref::<String>()
                .map(String::as_str)
                .or_else(|| panic.downcast_ref::<&str>().copied())
                .unwrap_or("(a panic without a message)");
            panic!("{target}: {} fails: {message}", path.display());
        }
    }
    eprintln!(
        "{target}: {} seeds, {} of {grown_count} grown inputs",
        seeds.len(),
        grown_count.min(GROWN_SAMPLE)
    );
}

#[test]
fn canonical_url_corpus() {
    replay("canonical_url", canonical_url::check);
}

#[test]
fn charset_corpus() {
    replay("charset", charset::check);
}

#[test]
fn config_corpus() {
    replay("config", config::check);
}

#[test]
fn html_corpus() {
    replay("html", html::check);
}

#[test]
fn html_main_content_corpus() {
    replay("html_main_content", html_main_content::check);
}

#[test]
fn http_head_corpus() {
    replay("http_head", http_head::check);
}

#[test]
fn pipeline_corpus() {
    replay("pipeline", pipeline::check);
}

#[test]
fn robots_corpus() {
    replay("robots", robots::check);
}

#[test]
fn sitemap_corpus() {
    replay("sitemap", sitemap::check);
}

#[test]
fn warc_reader_corpus() {
    replay("warc_reader", warc_reader::check);
}
