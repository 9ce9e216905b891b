//! Shared helpers of the benchmark binaries (`src/bin/*`), run together by `benches/run`.
//!
//! * Corpus: the Rust documentation shipped with the toolchain
//!   (`$(rustc --print sysroot)/share/doc/rust/html`, or `DEDUP_BENCH_CORPUS`).
//! * Timing: wall clock and the CPU time of the measuring thread (the machine is shared and
//!   noisy; per-core figures use thread CPU time, and every headline is a ratio against a peer
//!   measured in the same run).
//! * Shingle-set dump: the exchange format with the Python peers (`benches/peers/`).

pub mod extraction;
mod pair_counts;
pub mod template_truth;
pub mod truth;

pub use pair_counts::PairCounts;

use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The root of the documentation corpus.
pub fn corpus_root() -> anyhow::Result<PathBuf> {
    if let Ok(dir) = std::env::var("DEDUP_BENCH_CORPUS") {
        return Ok(PathBuf::from(dir));
    }
    let output = std::process::Command::new("rustc")
        .args(["--print", "sysroot"])
        .output()?;
    anyhow::ensure!(output.status.success(), "rustc --print sysroot failed");
    let sysroot = String::from_utf8(output.stdout)?.trim().to_string();
    let root = Path::new(&sysroot).join("share/doc/rust/html");
    anyhow::ensure!(
        root.is_dir(),
        "{} is missing: install the rust-docs component (rustup component add rust-docs) or set DEDUP_BENCH_CORPUS",
        root.display()
    );
    Ok(root)
}

/// `*.html` / `*.htm` files under `dir`, in the order `dedupcrawl dedup` reads them
/// (an unreadable entry gives an empty list; the benchmark corpus has none).
pub fn html_files(dir: &Path) -> Vec<PathBuf> {
    dedupcrawl_pipeline::html_files(dir).unwrap_or_default()
}

/// A page loaded into memory.
pub struct Page {
    pub path: String,
    pub bytes: Vec<u8>,
    pub html: String,
}

pub fn load_page(path: &Path) -> anyhow::Result<Page> {
    let bytes = std::fs::read(path)?;
    let html = String::from_utf8_lossy(&bytes).into_owned();
    Ok(Page {
        path: path.display().to_string(),
        bytes,
        html,
    })
}

pub use dedupcrawl_stagecpu::{process_cpu_time, thread_cpu_time};

/// Wall and thread-CPU seconds of one measured section.
#[derive(Debug, Clone, Copy, Default)]
pub struct Timing {
    pub wall: f64,
    pub cpu: f64,
}

impl Timing {
    /// Keeps the faster of two measurements (by CPU time; noise only ever adds time).
    pub fn best(self, other: Timing) -> Timing {
        if self.cpu == 0.0 || (other.cpu > 0.0 && other.cpu < self.cpu) {
            other
        } else {
            self
        }
    }
}

/// Runs `f` once and measures it.
pub fn measure<T>(f: impl FnOnce() -> T) -> (T, Timing) {
    let (w0, c0) = (Instant::now(), thread_cpu_time());
    let value = f();
    let timing = Timing {
        wall: w0.elapsed().as_secs_f64(),
        cpu: (thread_cpu_time() - c0).as_secs_f64(),
    };
    (value, timing)
}

/// Writes sets of u64 as: magic `SHSETS01`, u64 count, then per set u64 length and the values,
/// all little-endian. Read by `benches/peers/minhash_peers.py`.
pub fn write_sets(path: &Path, sets: &[Vec<u64>]) -> anyhow::Result<()> {
    let mut out = BufWriter::new(std::fs::File::create(path)?);
    out.write_all(b"SHSETS01")?;
    out.write_all(&(sets.len() as u64).to_le_bytes())?;
    for set in sets {
        out.write_all(&(set.len() as u64).to_le_bytes())?;
        for v in set {
            out.write_all(&v.to_le_bytes())?;
        }
    }
    out.flush()?;
    Ok(())
}

pub fn read_sets(path: &Path) -> anyhow::Result<Vec<Vec<u64>>> {
    let mut input = BufReader::new(std::fs::File::open(path)?);
    let mut word = [0u8; 8];
    input.read_exact(&mut word)?;
    anyhow::ensure!(
        &word == b"SHSETS01",
        "{} is not a shingle-set dump",
        path.display()
    );
    input.read_exact(&mut word)?;
    let count = u64::from_le_bytes(word) as usize;
    let mut sets = Vec::with_capacity(count);
    for _ in 0..count {
        input.read_exact(&mut word)?;
        let len = u64::from_le_bytes(word) as usize;
        let mut bytes = vec![0u8; len * 8];
        input.read_exact(&mut bytes)?;
        sets.push(
            bytes
                .chunks_exact(8)
                .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
                .collect(),
        );
    }
    Ok(sets)
}

/// A Markdown table.
pub struct Table {
    header: Vec<String>,
    rows: Vec<Vec<String>>,
}

impl Table {
    pub fn new(header: &[&str]) -> Self {
        Table {
            header: header.iter().map(|s| s.to_string()).collect(),
            rows: Vec::new(),
        }
    }

    pub fn row(&mut self, cells: Vec<String>) {
        self.rows.push(cells);
    }

    pub fn render(&self) -> String {
        let mut out = String::new();
        out.push_str(&format!("| {} |\n", self.header.join(" | ")));
        out.push_str(&format!(
            "|{}\n",
            self.header.iter().map(|_| "---|").collect::<String>()
        ));
        for row in &self.rows {
            out.push_str(&format!("| {} |\n", row.join(" | ")));
        }
        out
    }
}

/// `value` with a thousands separator and no decimals.
pub fn thousands(value: f64) -> String {
    let n = value.round() as i64;
    let digits = n.abs().to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    if n < 0 { format!("-{out}") } else { out }
}

/// Allocated bytes of every file under `dir` (like `du -s --block-size=1`).
pub fn du_bytes(dir: &Path) -> u64 {
    use std::os::unix::fs::MetadataExt;
    walkdir::WalkDir::new(dir)
        .into_iter()
        .flatten()
        .filter_map(|e| e.metadata().ok())
        .filter(|m| m.is_file())
        .map(|m| m.blocks() * 512)
        .sum()
}

/// Simple `--key value` / `--flag` argument access.
pub struct Args(Vec<String>);

impl Args {
    pub fn from_env() -> Self {
        Args(std::env::args().skip(1).collect())
    }

    pub fn value(&self, key: &str) -> Option<String> {
        self.0
            .iter()
            .position(|a| a == key)
            .and_then(|i| self.0.get(i + 1).cloned())
    }

    pub fn values(&self, key: &str) -> Vec<String> {
        self.0
            .iter()
            .enumerate()
            .filter(|(_, a)| *a == key)
            .filter_map(|(i, _)| self.0.get(i + 1).cloned())
            .collect()
    }

    pub fn flag(&self, key: &str) -> bool {
        self.0.iter().any(|a| a == key)
    }

    pub fn parse<T: std::str::FromStr>(&self, key: &str, default: T) -> T {
        self.value(key)
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    }
}
