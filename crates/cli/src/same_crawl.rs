//! One OUT, one crawl: `dedupcrawl crawl` on an output directory that holds a crawl resumes it
//! only with the same seeds and configuration (as saved in `OUT/crawl.toml`); anything else is
//! an error that shows the difference. `--add-seeds` extends the crawl with new seeds on
//! purpose. Keys that tune how a crawl runs (speed, timeouts, budgets, logging) may change
//! between runs; the keys that say what is crawled and how pages are decided may not.

use std::collections::BTreeSet;
use std::path::Path;

use dedupcrawl_crawler::{CrawlConfig, without_credentials};
use toml::Value;

/// Keys that may differ between two runs of one crawl (a table name: all of its keys).
const TUNING_KEYS: &[&str] = &[
    "crawl.out",
    "crawl.user_agent",
    "crawl.concurrency",
    "crawl.per_host",
    "crawl.delay",
    "crawl.max_crawl_delay",
    "crawl.max_pages",
    "crawl.max_memory_mb",
    "crawl.progress",
    "crawl.progress_every",
    "crawl.checkpoint_every",
    "crawl.interrupt_grace_seconds",
    "fetch",
    "store.worker",
    "store.lease_seconds",
    "store.reconnect_seconds",
    "archive.max_file_size",
    "archive.gzip_level",
    "recrawl",
];

/// Keys of each `[[site]]` that may differ between two runs.
const SITE_TUNING_KEYS: &[&str] = &["delay", "schedule", "every"];

/// `run` with the seeds of `saved` added (`--add-seeds`): each seed list of the run gets the
/// saved seeds it lacks, and `[[site]]` entries of the saved config missing from the run are
/// kept. A seed's credentials come from the run (the saved config has none).
pub fn with_added_seeds(saved: &CrawlConfig, mut run: CrawlConfig) -> CrawlConfig {
    add_missing(&mut run.crawl.seeds, &saved.crawl.seeds);
    for (index, saved_site) in saved.site.iter().enumerate() {
        match run.site.get_mut(index) {
            Some(site) => add_missing(&mut site.seeds, &saved_site.seeds),
            None => run.site.push(saved_site.clone()),
        }
    }
    run
}

fn add_missing(seeds: &mut Vec<String>, saved: &[String]) {
    let have: BTreeSet<String> = seeds.iter().map(|seed| seed_key(seed)).collect();
    for seed in saved {
        if !have.contains(&seed_key(seed)) {
            seeds.push(seed.clone());
        }
    }
}

/// A seed as compared: trimmed, without credentials.
fn seed_key(seed: &str) -> String {
    without_credentials(seed.trim())
}

/// Ok when `run` is the crawl `saved` (in `out`) describes: the same seeds (in any order, with
/// or without credentials) and the same values of every key outside [`TUNING_KEYS`]. With
/// `add_seeds`, `run` may have more seeds and more `[[site]]` entries.
pub fn check(
    saved: &CrawlConfig,
    run: &CrawlConfig,
    add_seeds: bool,
    out: &Path,
) -> anyhow::Result<()> {
    let lines = differences(saved, run, add_seeds)?;
    if lines.is_empty() {
        return Ok(());
    }
    let saved_path = out.join(crate::crawl::SAVED_CONFIG);
    let seeds_differ = lines.iter().any(|line| line.contains("seeds"));
    let extend = if seeds_differ && !add_seeds {
        "to extend this crawl with the new seeds on purpose, run again with --add-seeds; "
    } else {
        ""
    };
    anyhow::bail!(
        "{} holds another crawl: this run's configuration differs from the crawl's ({}):\n{}\n\
         One output directory holds one crawl: {extend}for a new crawl, use another --out; to \
         resume this one, run it with its own configuration (--config {})",
        out.display(),
        saved_path.display(),
        lines.join("\n"),
        saved_path.display()
    )
}

/// One line per key whose value differs: `  key: OUT has X, this run has Y`.
fn differences(
    saved: &CrawlConfig,
    run: &CrawlConfig,
    add_seeds: bool,
) -> anyhow::Result<Vec<String>> {
    let mut saved = comparable(saved)?;
    let mut run = comparable(run)?;
    if add_seeds {
        // New [[site]] entries extend the crawl too.
        let saved_sites = saved
            .get("site")
            .and_then(Value::as_array)
            .map_or(0, Vec::len);
        if let Some(Value::Array(sites)) = run.get_mut("site") {
            sites.truncate(saved_sites);
        }
        for table in [&mut saved, &mut run] {
            remove_seeds(table);
        }
    }
    let mut lines = Vec::new();
    walk(
        "",
        Some(&Value::Table(saved)),
        Some(&Value::Table(run)),
        &mut lines,
    );
    Ok(lines)
}

/// `config` as a TOML table without its tuning keys, its seed lists as sorted sets without
/// credentials.
fn comparable(config: &CrawlConfig) -> anyhow::Result<toml::Table> {
    let mut config = config.clone();
    let normalize = |seeds: &mut Vec<String>| {
        let set: BTreeSet<String> = seeds.iter().map(|seed| seed_key(seed)).collect();
        *seeds = set.into_iter().collect();
    };
    normalize(&mut config.crawl.seeds);
    for site in &mut config.site {
        normalize(&mut site.seeds);
    }
    let mut table = toml::Table::try_from(&config)?;
    for key in TUNING_KEYS {
        match key.split_once('.') {
            Some((section, name)) => {
                if let Some(Value::Table(section)) = table.get_mut(section) {
                    section.remove(name);
                }
            }
            None => {
                table.remove(*key);
            }
        }
    }
    if let Some(Value::Array(sites)) = table.get_mut("site") {
        for site in sites.iter_mut().filter_map(Value::as_table_mut) {
            for key in SITE_TUNING_KEYS {
                site.remove(*key);
            }
        }
    }
    Ok(table)
}

fn remove_seeds(table: &mut toml::Table) {
    if let Some(Value::Table(crawl)) = table.get_mut("crawl") {
        crawl.remove("seeds");
    }
    if let Some(Value::Array(sites)) = table.get_mut("site") {
        for site in sites.iter_mut().filter_map(Value::as_table_mut) {
            site.remove("seeds");
        }
    }
}

/// Compares two values at `path`, descending into tables and arrays of tables.
fn walk(path: &str, saved: Option<&Value>, run: Option<&Value>, lines: &mut Vec<String>) {
    let join = |key: &str| {
        if path.is_empty() {
            key.to_string()
        } else {
            format!("{path}.{key}")
        }
    };
    match (saved, run) {
        (Some(Value::Table(saved)), Some(Value::Table(run))) => {
            let keys: BTreeSet<&String> = saved.keys().chain(run.keys()).collect();
            for key in keys {
                walk(&join(key), saved.get(key), run.get(key), lines);
            }
        }
        (Some(Value::Array(saved)), Some(Value::Array(run)))
            if saved.iter().chain(run).any(Value::is_table) =>
        {
            for index in 0..saved.len().max(run.len()) {
                walk(
                    &format!("{path}[{index}]"),
                    saved.get(index),
                    run.get(index),
                    lines,
                );
            }
        }
        (saved, run) if saved != run => lines.push(format!(
            "  {path}: OUT has {}, this run has {}",
            shown(saved),
            shown(run)
        )),
        _ => {}
    }
}

fn shown(value: Option<&Value>) -> String {
    match value {
        None => "none".to_string(),
        Some(value) => serde_json::to_string(value).unwrap_or_else(|_| value.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(seeds: &[&str]) -> CrawlConfig {
        let mut config = CrawlConfig::default();
        config.crawl.seeds = seeds.iter().map(|seed| seed.to_string()).collect();
        config
    }

    #[test]
    fn the_same_seeds_in_another_order_with_credentials_and_other_tuning_are_the_same_crawl() {
        let saved = config(&["http://a.example/", "http://b.example/"]);
        let mut run = config(&["http://user:pw@b.example/", "http://a.example/"]);
        run.crawl.max_pages = Some(10);
        run.crawl.delay = 0.0;
        run.fetch.read_timeout = 1.0;
        assert_eq!(
            differences(&saved, &run, false).unwrap(),
            Vec::<String>::new()
        );
    }

    #[test]
    fn other_seeds_or_decision_keys_are_named_with_both_values() {
        let saved = config(&["http://a.example/"]);
        let mut run = config(&["http://b.example/"]);
        run.dedup.threshold = 0.5;
        run.crawl.max_depth = Some(2);
        let lines = differences(&saved, &run, false).unwrap();
        assert_eq!(lines.len(), 3, "{lines:?}");
        assert!(
            lines[0].contains("crawl.max_depth: OUT has none, this run has 2"),
            "{lines:?}"
        );
        assert!(
            lines[1].contains(
                r#"crawl.seeds: OUT has ["http://a.example/"], this run has ["http://b.example/"]"#
            ),
            "{lines:?}"
        );
        assert!(lines[2].contains("dedup.threshold"), "{lines:?}");
        let error = check(&saved, &run, false, Path::new("X")).unwrap_err();
        assert!(error.to_string().contains("--add-seeds"), "{error}");
        assert!(error.to_string().contains("another --out"), "{error}");
    }

    #[test]
    fn added_seeds_extend_the_crawl_but_other_keys_must_still_match() {
        let saved = config(&["http://a.example/"]);
        let run = with_added_seeds(&saved, config(&["http://user:pw@b.example/"]));
        assert_eq!(
            run.crawl.seeds,
            ["http://user:pw@b.example/", "http://a.example/"]
        );
        assert!(differences(&saved, &run, true).unwrap().is_empty());
        let mut other = run.clone();
        other.dedup.threshold = 0.5;
        assert_eq!(differences(&saved, &other, true).unwrap().len(), 1);
    }
}
