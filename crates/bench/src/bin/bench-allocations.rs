//! Heap allocations per page, by stage, on the Rust docs: what the hot path asks of the
//! allocator (issue 49).
//!
//! `bench-allocations [--dirs std] [--max-per-dir N]`
//!
//! A counting global allocator (this binary only) around the system allocator counts the
//! allocations (and reallocations) and the bytes asked for while each stage of
//! [`DedupStage`] runs on one thread, page after page in directory order as offline `dedup`
//! takes them: parse (`prepare_blocks`), main content (`decide_main_content`), sketch
//! (`fingerprint_prepared`), index (`decide`, a fresh sled index), and the page's WARC capture
//! (`WarcWriter::write_capture`, gzip). sled's own threads allocate too; what they do while a
//! stage runs on the measuring thread is counted with it (the figures are of the whole
//! process), so the index row is an upper bound.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use dedupcrawl_archive::{
    Capture, HttpRequestHead, HttpResponseHead, WarcWriter, WarcWriterConfig,
};
use dedupcrawl_bench::{Args, Table, corpus_root, html_files, load_page};
use dedupcrawl_index::SledDedupIndex;
use dedupcrawl_pipeline::{DedupSettings, DedupStage};

/// The system allocator, counting.
struct Counting;

static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);
static BYTES: AtomicU64 = AtomicU64::new(0);

// SAFETY: every call is passed on to the system allocator unchanged; the counters are atomics.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        BYTES.fetch_add(layout.size() as u64, Ordering::Relaxed);
        // SAFETY: the caller's contract is the system allocator's.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract is the system allocator's.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        BYTES.fetch_add(new_size as u64, Ordering::Relaxed);
        // SAFETY: the caller's contract is the system allocator's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Allocations and bytes counted for one stage, over every page.
#[derive(Default, Clone, Copy)]
struct Counted {
    allocations: u64,
    bytes: u64,
}

fn counted<T>(total: &mut Counted, work: impl FnOnce() -> T) -> T {
    let (allocations, bytes) = (
        ALLOCATIONS.load(Ordering::Relaxed),
        BYTES.load(Ordering::Relaxed),
    );
    let result = work();
    total.allocations += ALLOCATIONS.load(Ordering::Relaxed) - allocations;
    total.bytes += BYTES.load(Ordering::Relaxed) - bytes;
    result
}

const STAGES: [&str; 5] = ["parse", "main_content", "sketch", "index", "archive"];

fn main() -> anyhow::Result<()> {
    let args = Args::from_env();
    let root = corpus_root()?;
    let dirs = args.value("--dirs").unwrap_or_else(|| "std".into());
    let max_per_dir: usize = args.parse("--max-per-dir", 2000);
    let mut pages = Vec::new();
    for dir in dirs.split(',') {
        for path in html_files(&root.join(dir)).into_iter().take(max_per_dir) {
            pages.push((dir.to_string(), load_page(&path)?));
        }
    }
    anyhow::ensure!(
        !pages.is_empty(),
        "no pages under {} ({dirs})",
        root.display()
    );
    let index_dir = tempfile::tempdir()?;
    let warc_dir = tempfile::tempdir()?;
    let settings = DedupSettings::default();
    let index = SledDedupIndex::open(index_dir.path(), settings.index_config())?;
    let stage = DedupStage::new(Arc::new(index), settings);
    let mut config = WarcWriterConfig::new(warc_dir.path(), "bench");
    config.host_name = Some("bench".to_string());
    let mut writer = WarcWriter::open(config)?;
    let request = HttpRequestHead::get("/", Vec::new());
    let mut totals = [Counted::default(); STAGES.len()];
    let mut html_bytes = 0usize;
    for (host, page) in &pages {
        html_bytes += page.bytes.len();
        let mut prepared = counted(&mut totals[0], || stage.prepare_blocks(&page.html));
        counted(&mut totals[1], || {
            stage.decide_main_content(&page.path, host, &page.html, &mut prepared)
        });
        let fingerprinted = counted(&mut totals[2], || {
            stage.fingerprint_prepared(&page.path, host, &page.bytes, prepared)
        })?;
        counted(&mut totals[3], || stage.decide(&fingerprinted.fingerprint))?;
        let response = HttpResponseHead {
            version: "HTTP/1.1".to_string(),
            status: 200,
            reason: "OK".to_string(),
            headers: vec![("Content-Type".to_string(), b"text/html".to_vec())],
        };
        let uri = format!("http://127.0.0.1/{}", page.path);
        counted(&mut totals[4], || {
            writer.write_capture(&Capture::new(&uri, &request, &response, &page.bytes))
        })?;
    }
    let n = pages.len() as f64;
    println!(
        "### Heap allocations per page by stage\n\n{} pages of {dirs} ({:.1} MB of HTML), one thread, in order; counted by a global allocator around the system's (allocations + reallocations; bytes asked for).\n",
        pages.len(),
        html_bytes as f64 / 1e6
    );
    let mut table = Table::new(&[
        "stage",
        "allocations / page",
        "KB asked / page",
        "bytes asked / HTML byte",
    ]);
    for (name, total) in STAGES.iter().zip(&totals) {
        table.row(vec![
            name.to_string(),
            format!("{:.0}", total.allocations as f64 / n),
            format!("{:.1}", total.bytes as f64 / n / 1e3),
            format!("{:.2}", total.bytes as f64 / html_bytes as f64),
        ]);
    }
    let all = totals.iter().fold(Counted::default(), |sum, t| Counted {
        allocations: sum.allocations + t.allocations,
        bytes: sum.bytes + t.bytes,
    });
    table.row(vec![
        "all".to_string(),
        format!("{:.0}", all.allocations as f64 / n),
        format!("{:.1}", all.bytes as f64 / n / 1e3),
        format!("{:.2}", all.bytes as f64 / html_bytes as f64),
    ]);
    print!("{}", table.render());
    Ok(())
}
