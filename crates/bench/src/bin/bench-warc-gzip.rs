//! WARC gzip level: bytes against CPU on real pages, the measurement behind
//! `archive.gzip_level`'s default.
//!
//! `bench-warc-gzip [--pages N] [--reps R] [--levels 1,2,...]`
//!
//! N pages of the Rust docs (every k-th HTML file of the whole tree, so the sample has the
//! site's mix of page sizes) are written as `response` + `request` captures through
//! [`WarcWriter`], one gzip member per record as a crawl writes them, once per deflate level
//! and once plain, the passes going round the settings. Each row: the measuring thread's CPU
//! (best of R passes), the bytes written, and both against the level the writer uses by
//! default, measured in the same run.

use dedupcrawl_archive::{
    Capture, HttpRequestHead, HttpResponseHead, WarcCompression, WarcWriter, WarcWriterConfig,
};
use dedupcrawl_bench::{Args, Table, corpus_root, html_files, thread_cpu_time};

/// What is written for one setting: a level, or `None` for plain `.warc`.
struct Outcome {
    level: Option<u32>,
    cpu_seconds: f64,
    bytes: u64,
}

fn main() -> anyhow::Result<()> {
    let args = Args::from_env();
    let root = corpus_root()?;
    let wanted: usize = args.parse("--pages", 3000);
    let reps: usize = args.parse("--reps", 3);
    let levels: Vec<u32> = args
        .value("--levels")
        .unwrap_or_else(|| "1,2,3,4,5,6,9".into())
        .split(',')
        .map(|level| level.trim().parse())
        .collect::<Result<_, _>>()?;
    let files = html_files(&root);
    anyhow::ensure!(!files.is_empty(), "no HTML files under {}", root.display());
    let step = (files.len() / wanted.max(1)).max(1);
    let pages: Vec<(String, Vec<u8>)> = files
        .iter()
        .step_by(step)
        .take(wanted)
        .map(|path| {
            let target = format!("/{}", path.strip_prefix(&root).unwrap_or(path).display());
            std::fs::read(path).map(|body| (target, body))
        })
        .collect::<Result<_, _>>()?;
    let payload: usize = pages.iter().map(|(_, body)| body.len()).sum();
    eprintln!(
        "{} pages, {:.1} MB of payload, {reps} passes per setting",
        pages.len(),
        payload as f64 / 1e6
    );

    // Passes go round the settings (every setting once, then again), so that a busy spell
    // of the shared machine does not fall on one setting's passes.
    let settings: Vec<Option<u32>> = levels.iter().copied().map(Some).chain([None]).collect();
    let mut outcomes: Vec<Option<Outcome>> = settings.iter().map(|_| None).collect();
    for _ in 0..reps {
        for (best, &level) in outcomes.iter_mut().zip(&settings) {
            let outcome = write_all(&pages, level)?;
            if best
                .as_ref()
                .is_none_or(|b| outcome.cpu_seconds < b.cpu_seconds)
            {
                *best = Some(outcome);
            }
        }
    }
    let outcomes: Vec<Outcome> = outcomes.into_iter().flatten().collect();
    print!(
        "{}",
        report(
            &outcomes,
            pages.len(),
            payload,
            WarcWriterConfig::DEFAULT_GZIP_LEVEL
        )
    );
    Ok(())
}

/// Writes every page as a capture at `level` (`None`: plain) into a fresh directory.
fn write_all(pages: &[(String, Vec<u8>)], level: Option<u32>) -> anyhow::Result<Outcome> {
    let dir = tempfile::tempdir()?;
    let mut config = WarcWriterConfig::new(dir.path(), "bench");
    config.host_name = Some("bench".to_string());
    match level {
        Some(level) => config.gzip_level = level,
        None => config.compression = WarcCompression::None,
    }
    let mut writer = WarcWriter::open(config)?;
    let start = thread_cpu_time();
    for (target, body) in pages {
        let request = HttpRequestHead::get(
            target.clone(),
            vec![
                ("Host".to_string(), b"127.0.0.1:8080".to_vec()),
                ("User-Agent".to_string(), b"dedupcrawl/0.1".to_vec()),
                ("Accept".to_string(), b"text/html,*/*;q=0.8".to_vec()),
            ],
        );
        let response = HttpResponseHead {
            version: "HTTP/1.1".to_string(),
            status: 200,
            reason: "OK".to_string(),
            headers: vec![
                ("Server".to_string(), b"nginx".to_vec()),
                ("Content-Type".to_string(), b"text/html".to_vec()),
                (
                    "Content-Length".to_string(),
                    body.len().to_string().into_bytes(),
                ),
                (
                    "Last-Modified".to_string(),
                    b"Thu, 01 Jan 2026 00:00:00 GMT".to_vec(),
                ),
            ],
        };
        let uri = format!("http://127.0.0.1:8080{target}");
        writer.write_capture(&Capture::new(&uri, &request, &response, body))?;
    }
    writer.flush()?;
    let cpu_seconds = (thread_cpu_time() - start).as_secs_f64();
    drop(writer);
    let bytes = std::fs::read_dir(dir.path())?
        .map(|entry| Ok(entry?.metadata()?.len()))
        .sum::<std::io::Result<u64>>()?;
    Ok(Outcome {
        level,
        cpu_seconds,
        bytes,
    })
}

/// The Markdown table, each row against the writer's default level.
fn report(outcomes: &[Outcome], pages: usize, payload: usize, default_level: u32) -> String {
    let baseline = outcomes.iter().find(|o| o.level == Some(default_level));
    let mut table = Table::new(&[
        "setting",
        "CPU µs / page",
        "MB/s per core (payload)",
        "written / payload",
        "CPU vs default",
        "bytes vs default",
    ]);
    for outcome in outcomes {
        let name = match outcome.level {
            Some(level) if level == default_level => format!("gzip level {level} (default)"),
            Some(level) => format!("gzip level {level}"),
            None => "plain .warc".to_string(),
        };
        let versus = |value: f64, base: Option<f64>| {
            base.map_or("n/a".to_string(), |base| format!("{:.2}", value / base))
        };
        table.row(vec![
            name,
            format!("{:.0}", 1e6 * outcome.cpu_seconds / pages.max(1) as f64),
            format!("{:.0}", payload as f64 / 1e6 / outcome.cpu_seconds),
            format!("{:.3}", outcome.bytes as f64 / payload.max(1) as f64),
            versus(outcome.cpu_seconds, baseline.map(|b| b.cpu_seconds)),
            versus(outcome.bytes as f64, baseline.map(|b| b.bytes as f64)),
        ]);
    }
    table.render()
}
