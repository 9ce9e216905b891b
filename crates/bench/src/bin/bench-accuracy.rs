//! Accuracy of `dedupcrawl dedup` on the real corpus against exact pairwise Jaccard.
//!
//! `bench-accuracy --root CORPUS_ROOT --decisions VIEW=FILE [--decisions VIEW=FILE]
//! [--near-method super_shingles]` (VIEW is `main` or `full`; FILE the JSONL of
//! `dedupcrawl dedup --view VIEW --out FILE`, run with the same `--near-method`, which the
//! replay of the dedup uses too).
//!
//! Truth: for every document of the JSONL, the set of 5-shingles of its tokens by the dedup's
//! token definition, computed independently of the code under test (`dedupcrawl_bench::truth`:
//! a scraper DOM walk for `full`, rs-trafilatura's own text of the page for `main`, tokens
//! and link tokens by other code), with a fallback to the full page when the main text has
//! fewer than 5 tokens. The host template and host models are not applied: truth is each
//! page on its own.
//!
//! Exact Jaccard of every pair that shares at least one shingle: an inverted index over
//! shingle hashes, every posting list expanded into pairs (no cap), intersections counted
//! exactly in a dense triangular matrix. J = |A∩B| / |A∪B| over 64-bit shingle hashes.
//! Documents with no tokens are left out (they only take part in exact-payload checks).
//!
//! A true pair (J ≥ t) is *found* when the dedup put both documents in one cluster: the
//! clusters are the connected components of the `duplicate_of` links (each duplicate names the
//! most similar earlier page, which may itself be a duplicate, so a cluster is a tree rooted at
//! its first page). Precision: of the flagged links (document → `duplicate_of`), the share
//! whose true J ≥ 0.75 (threshold 0.8 − 0.05) for `exact_duplicate`/`near_duplicate` (an
//! `exact_duplicate` of two pages too short to shingle counts when the files are identical:
//! the dedup links those by payload digest only), and whose true containment |A∩B|/|A| ≥ 0.85
//! (0.9 − 0.05) for `contained`.

use std::collections::HashMap;

use dedupcrawl_bench::{Args, PairCounts, Table, load_page, thousands};
use dedupcrawl_sketch::shingle_set;
use dedupcrawl_textprep::{PreparedPage, TextPrep, TextPrepConfig, View};
use rayon::prelude::*;

const W: usize = 5;

struct Doc {
    path: String,
    decision: String,
    duplicate_of: Option<String>,
    similarity: Option<f64>,
    page: PreparedPage,
    full: Vec<u64>,
    /// rs-trafilatura's text of the page (an earlier truth, kept for comparison).
    main: Vec<u64>,
    /// Main content as marked up by the site's generator, host template left out in hindsight
    /// (`template_truth`): the main view's truth.
    own: Vec<u64>,
    /// The same main content with the template kept.
    plain: Vec<u64>,
    blocks: Vec<dedupcrawl_bench::template_truth::TruthBlock>,
}

/// Which truth a report is against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Truth {
    /// The full page (full view).
    Full,
    /// Main content without the host template (main view; the one the goals are read on).
    Own,
    /// Main content with the template.
    Plain,
    /// rs-trafilatura's text of each page.
    Extractor,
}

impl Truth {
    fn describe(self) -> &'static str {
        match self {
            Truth::Full => "full view, the same sets the dedup compares",
            Truth::Own => {
                "main content as the site's generator marks it up (`#main-content`, `<main>`), \
                 minus the host's template in hindsight (blocks on ≥ 3 and ≥ 5 % of the host's \
                 distinct pages), all of it when fewer than 20 tokens remain (`template_truth.rs`)"
            }
            Truth::Plain => "main content as the site's generator marks it up, template kept",
            Truth::Extractor => "rs-trafilatura's text of each page on its own, template kept",
        }
    }
}

fn find(parent: &mut [usize], mut x: usize) -> usize {
    while parent[x] != x {
        parent[x] = parent[parent[x]];
        x = parent[x];
    }
    x
}

fn main() -> anyhow::Result<()> {
    let args = Args::from_env();
    let root = args
        .value("--root")
        .map(std::path::PathBuf::from)
        .map_or_else(dedupcrawl_bench::corpus_root, Ok)?;
    let root_prefix = format!("{}/", root.display());
    let short = |p: &str| p.strip_prefix(&root_prefix).unwrap_or(p).to_string();
    let prep = TextPrep::new(TextPrepConfig::default());
    let near_method = match args.value("--near-method").as_deref() {
        None | Some("lsh") => dedupcrawl_pipeline::NearMethodName::Lsh,
        Some("super_shingles" | "super-shingles") => {
            dedupcrawl_pipeline::NearMethodName::SuperShingles
        }
        Some(other) => anyhow::bail!("--near-method {other}: lsh or super_shingles"),
    };

    for spec in args.values("--decisions") {
        let (view_name, file) = spec
            .split_once('=')
            .ok_or_else(|| anyhow::anyhow!("--decisions VIEW=FILE"))?;
        let view = match view_name {
            "main" => View::MainContent,
            "full" => View::FullPage,
            other => anyhow::bail!("unknown view {other}"),
        };
        let lines: Vec<serde_json::Value> = std::fs::read_to_string(file)?
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(serde_json::from_str)
            .collect::<Result<_, _>>()?;
        let docs: Vec<Doc> = lines
            .par_iter()
            .map(|line| -> anyhow::Result<Doc> {
                let path = line["path"].as_str().unwrap_or_default().to_string();
                let html = load_page(std::path::Path::new(&path))?.html;
                let page = prep.prepare(&html);
                let blocks = dedupcrawl_bench::template_truth::main_blocks(&html, &short(&path));
                let links = dedupcrawl_bench::truth::link_tokens(&html, &short(&path));
                let mut full_tokens = dedupcrawl_bench::truth::tokens(
                    &dedupcrawl_textprep::extract_text_with_dom(&html),
                );
                let mut main_tokens =
                    dedupcrawl_bench::truth::tokens(&dedupcrawl_bench::truth::main_text(&html));
                full_tokens.extend_from_slice(&links);
                main_tokens.extend_from_slice(&links);
                if main_tokens.len() < W {
                    main_tokens = full_tokens.clone();
                }
                // Fewer tokens than one shingle: no text to compare (the dedup compares such
                // pages by payload digest only), so no truth pairs either.
                for tokens in [&mut full_tokens, &mut main_tokens] {
                    if tokens.len() < W {
                        tokens.clear();
                    }
                }
                Ok(Doc {
                    decision: line["decision"].as_str().unwrap_or_default().to_string(),
                    duplicate_of: line["duplicate_of"].as_str().map(str::to_string),
                    similarity: line["similarity"].as_f64(),
                    full: shingle_set(&full_tokens, W),
                    main: shingle_set(&main_tokens, W),
                    own: Vec::new(),
                    plain: Vec::new(),
                    blocks,
                    page,
                    path,
                })
            })
            .collect::<Result<_, _>>()?;
        let mut docs = docs;
        {
            let pages: Vec<(String, Vec<dedupcrawl_bench::template_truth::TruthBlock>)> = docs
                .iter_mut()
                .map(|d| {
                    let host = short(&d.path).split('/').next().unwrap_or("").to_string();
                    (host, std::mem::take(&mut d.blocks))
                })
                .collect();
            let compared = dedupcrawl_bench::template_truth::compared_tokens(&pages);
            let mut hosts: Vec<_> = compared.template_blocks.iter().collect();
            hosts.sort();
            eprintln!(
                "template truth: template blocks / distinct pages per host: {}",
                hosts
                    .iter()
                    .map(|(h, n)| format!("{h} {n}/{}", compared.distinct_pages[*h]))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
            let shingled = |tokens: &Vec<u64>| {
                if tokens.len() < W {
                    Vec::new()
                } else {
                    shingle_set(tokens, W)
                }
            };
            for (d, (own, plain)) in docs
                .iter_mut()
                .zip(compared.own.iter().zip(&compared.plain))
            {
                d.own = shingled(own);
                d.plain = shingled(plain);
            }
        }
        // What the dedup compared: the real stage replayed in the same order on a fresh
        // index (same decisions, so the same host templates learnt along the way).
        let compared: (Vec<Vec<u64>>, Vec<ExactKeys>, usize) = {
            let settings = dedupcrawl_pipeline::DedupSettings {
                view,
                near_method,
                ..Default::default()
            };
            let index_dir = tempfile::tempdir()?;
            let index =
                dedupcrawl_index::SledDedupIndex::open(index_dir.path(), settings.index_config())?;
            let stage = dedupcrawl_pipeline::DedupStage::new(std::sync::Arc::new(index), settings);
            let mut out = Vec::with_capacity(docs.len());
            let mut replay_disagreements = 0usize;
            let mut exact_keys = Vec::with_capacity(docs.len());
            for d in &docs {
                // The host as `dedupcrawl dedup` names it: the site directory it was given.
                let site = short(&d.path).split('/').next().unwrap_or("").to_string();
                let host = root.join(site).display().to_string();
                let payload = load_page(std::path::Path::new(&d.path))?.html;
                let fingerprinted =
                    stage.fingerprint_html(&d.path, &host, payload.as_bytes(), &payload)?;
                let decision = stage.index().check_and_insert(&fingerprinted.fingerprint)?;
                if debug_paths().iter().any(|p| d.path.ends_with(p.as_str())) {
                    eprintln!(
                        "== {} ({:?}, {} tokens compared)\n-- main view (T: host template):\n{}\n-- truth main blocks:\n{}",
                        short(&d.path),
                        decision_of(&decision),
                        fingerprinted.tokens.len(),
                        stage
                            .textprep()
                            .view_blocks(&fingerprinted.page, View::MainContent, &|_| false)
                            .map(|block| {
                                let template = stage
                                    .block_key(&block.text, fingerprinted.page.language)
                                    .is_some_and(|key| {
                                        fingerprinted.template_keys.binary_search(&key).is_ok()
                                    });
                                format!("{} {}", if template { "T" } else { " " }, block.text)
                            })
                            .collect::<Vec<_>>()
                            .join("\n"),
                        dedupcrawl_bench::template_truth::main_blocks(&payload, &short(&d.path))
                            .iter()
                            .map(|b| b.text.as_str())
                            .collect::<Vec<_>>()
                            .join("\n")
                    );
                }
                if decision_of(&decision) != (d.decision.as_str(), d.duplicate_of.as_deref()) {
                    replay_disagreements += 1;
                }
                exact_keys.push((
                    fingerprinted.fingerprint.payload,
                    fingerprinted.fingerprint.tokens,
                ));
                out.push(if fingerprinted.tokens.len() < W {
                    Vec::new()
                } else {
                    shingle_set(&fingerprinted.tokens, W)
                });
            }
            (out, exact_keys, replay_disagreements)
        };
        let (compared, exact_keys, replay_disagreements) = compared;
        let compared_refs: Vec<&Vec<u64>> = compared.iter().collect();
        let compared_counts = PairCounts::new(&compared_refs);
        let compared_j = |a: usize, b: usize| -> f64 {
            let c = compared_counts.get(a, b) as f64;
            if c == u32::MAX as f64 {
                return 1.0;
            }
            let union = compared[a].len() as f64 + compared[b].len() as f64 - c;
            if union == 0.0 { 1.0 } else { c / union }
        };
        // Document-level recall of the index on what it compared: a document with an earlier
        // document recorded as new whose compared set has J ≥ t must not come back new.
        let mut doc_recall = [(0u64, 0u64); 2];
        let mut doc_missed: Vec<(f64, usize, usize)> = Vec::new();
        for i in 0..docs.len() {
            if compared[i].is_empty() {
                continue;
            }
            let mut best: Option<(f64, usize)> = None;
            for j in 0..i {
                if docs[j].decision != "new" || compared[j].is_empty() {
                    continue;
                }
                if compared_counts.get(i.min(j), i.max(j)) == 0 {
                    continue;
                }
                let jv = compared_j(i, j);
                if best.is_none_or(|(b, _)| jv > b) {
                    best = Some((jv, j));
                }
            }
            if let Some((jv, j)) = best {
                let flagged = docs[i].decision != "new";
                for (t, threshold) in [0.9, 0.8].iter().enumerate() {
                    if jv >= *threshold {
                        doc_recall[t].0 += 1;
                        doc_recall[t].1 += flagged as u64;
                    }
                }
                if !flagged && jv >= 0.9 {
                    doc_missed.push((jv, i, j));
                }
            }
        }
        doc_missed.sort_by(|x, y| y.0.total_cmp(&x.0));
        let by_path: HashMap<&str, usize> = docs
            .iter()
            .enumerate()
            .map(|(i, d)| (d.path.as_str(), i))
            .collect();
        fn view_set(d: &Doc, truth: Truth) -> &Vec<u64> {
            match truth {
                Truth::Full => &d.full,
                Truth::Own => &d.own,
                Truth::Plain => &d.plain,
                Truth::Extractor => &d.main,
            }
        }
        let truths: &[Truth] = match view {
            View::FullPage => &[Truth::Full],
            View::MainContent => &[Truth::Own, Truth::Plain, Truth::Extractor],
        };
        for &truth in truths {
            let truth_set = |d| view_set(d, truth);

            // Exact pair counts over non-empty documents.
            let members: Vec<usize> = (0..docs.len())
                .filter(|&i| !truth_set(&docs[i]).is_empty())
                .collect();
            let slot: HashMap<usize, usize> =
                members.iter().enumerate().map(|(s, &d)| (d, s)).collect();
            let started = std::time::Instant::now();
            let sets: Vec<&Vec<u64>> = members.iter().map(|&i| view_set(&docs[i], truth)).collect();
            let counts = PairCounts::new(&sets);
            let jaccard = |a: usize, b: usize| -> Option<f64> {
                let (sa, sb) = (slot.get(&a)?, slot.get(&b)?);
                let c = counts.get(*sa, *sb) as f64;
                let (la, lb) = (sets[*sa].len() as f64, sets[*sb].len() as f64);
                Some(c / (la + lb - c))
            };
            let containment = |a: usize, b: usize| -> Option<f64> {
                let (sa, sb) = (slot.get(&a)?, slot.get(&b)?);
                Some(counts.get(*sa, *sb) as f64 / sets[*sa].len() as f64)
            };
            let exact_seconds = started.elapsed().as_secs_f64();

            // Clusters from the dedup decisions.
            let mut parent: Vec<usize> = (0..docs.len()).collect();
            let mut links: Vec<(usize, usize, &str)> = Vec::new();
            let mut unresolved = 0;
            for (i, d) in docs.iter().enumerate() {
                if let Some(of) = &d.duplicate_of {
                    match by_path.get(of.as_str()) {
                        Some(&j) => {
                            links.push((i, j, d.decision.as_str()));
                            let (ri, rj) = (find(&mut parent, i), find(&mut parent, j));
                            parent[ri] = rj;
                        }
                        None => unresolved += 1,
                    }
                }
            }
            let cluster: Vec<usize> = (0..docs.len()).map(|i| find(&mut parent, i)).collect();

            // Recall.
            let m = members.len();
            let mut true_pairs = [0u64; 2];
            let mut found = [0u64; 2];
            let mut missed: Vec<(f64, usize, usize)> = Vec::new();
            for a in 0..m {
                for b in a + 1..m {
                    let c = counts.get(a, b);
                    if c == 0 {
                        continue;
                    }
                    let j = c as f64 / (sets[a].len() as f64 + sets[b].len() as f64 - c as f64);
                    if j < 0.8 {
                        continue;
                    }
                    let (da, db) = (members[a], members[b]);
                    let same = cluster[da] == cluster[db];
                    for (t, threshold) in [0.9, 0.8].iter().enumerate() {
                        if j >= *threshold {
                            true_pairs[t] += 1;
                            found[t] += same as u64;
                        }
                    }
                    if !same {
                        missed.push((j, da, db));
                    }
                }
            }
            missed.sort_by(|x, y| y.0.total_cmp(&x.0));

            // Precision.
            let mut flagged: HashMap<&str, (u64, u64, u64)> = HashMap::new();
            let mut flagged_compared: HashMap<&str, (u64, u64)> = HashMap::new();
            for &(i, j, kind) in &links {
                let entry = flagged_compared.entry(kind).or_default();
                entry.0 += 1;
                let ok = if kind == "contained" {
                    let c = compared_counts.get(i.min(j), i.max(j)) as f64;
                    !compared[i].is_empty() && c / compared[i].len() as f64 >= 0.85
                } else {
                    compared_j(i, j) >= 0.75
                };
                entry.1 += ok as u64;
            }
            let mut false_links: Vec<(usize, usize, &str, f64, Option<f64>)> = Vec::new();
            for &(i, j, kind) in &links {
                let entry = flagged.entry(kind).or_default();
                entry.0 += 1;
                let (ok, strict, measure) = if kind == "contained" {
                    let c = containment(i, j);
                    (c.is_some_and(|c| c >= 0.85), c.is_some_and(|c| c >= 0.9), c)
                } else {
                    // Pages with fewer tokens than a shingle have no truth set; the dedup links them
                    // by payload digest only, and such a link is right when the files are equal.
                    let jv = jaccard(i, j).or_else(|| {
                        let identical = kind == "exact_duplicate"
                            && std::fs::read(&docs[i].path).ok()
                                == std::fs::read(&docs[j].path).ok();
                        identical.then_some(1.0)
                    });
                    (
                        jv.is_some_and(|x| x >= 0.75),
                        jv.is_some_and(|x| x >= 0.8),
                        jv,
                    )
                };
                entry.1 += ok as u64;
                entry.2 += strict as u64;
                if !ok {
                    let full_j = if view == View::MainContent {
                        let (a, b) = (&docs[i].full, &docs[j].full);
                        (!a.is_empty() && !b.is_empty()).then(|| dedupcrawl_sketch::jaccard(a, b))
                    } else {
                        None
                    };
                    false_links.push((i, j, kind, measure.unwrap_or(f64::NAN), full_j));
                }
            }

            println!(
                "### Accuracy, `dedupcrawl dedup --view {view_name}` on book/ reference/ nomicon/ std/, truth {truth:?}\n"
            );
            println!(
                "{} documents ({} with no tokens left out), {} decisions linking to an original{}. Truth: {}. Exact pairs: {} shingle postings expanded into {} pair increments (longest posting list {}, no cap), {:.1}s.\n",
                thousands(docs.len() as f64),
                docs.len() - m,
                thousands(links.len() as f64),
                if unresolved > 0 {
                    format!(" ({unresolved} pointing outside the run)")
                } else {
                    String::new()
                },
                truth.describe(),
                thousands(sets.iter().map(|s| s.len()).sum::<usize>() as f64),
                thousands(counts.expanded_pairs as f64),
                thousands(counts.longest_posting as f64),
                exact_seconds
            );
            let mut table = Table::new(&["measure", "value"]);
            for (t, threshold) in [0.9, 0.8].iter().enumerate() {
                table.row(vec![
                    format!("recall at true J ≥ {threshold}"),
                    format!(
                        "**{:.4}** ({} of {} pairs in one cluster)",
                        found[t] as f64 / true_pairs[t].max(1) as f64,
                        thousands(found[t] as f64),
                        thousands(true_pairs[t] as f64)
                    ),
                ]);
            }
            for (t, threshold) in [0.9, 0.8].iter().enumerate() {
                table.row(vec![
                format!("document recall at J ≥ {threshold} on the sets the dedup compared (an earlier *new* document that close ⇒ must not be new)"),
                format!(
                    "{:.4} ({} of {})",
                    doc_recall[t].1 as f64 / doc_recall[t].0.max(1) as f64,
                    thousands(doc_recall[t].1 as f64),
                    thousands(doc_recall[t].0 as f64)
                ),
            ]);
            }
            let exact_links: Vec<_> = links.iter().filter(|l| l.2 == "exact_duplicate").collect();
            let identical = exact_links
                .iter()
                .filter(|&&&(i, j, _)| {
                    let ((payload_i, text_i), (payload_j, text_j)) =
                        (&exact_keys[i], &exact_keys[j]);
                    payload_i == payload_j || (text_i.is_some() && text_i == text_j)
                })
                .count();
            table.row(vec![
            "replica check: decisions of the replay that differ from the run's (kind or original)"
                .into(),
            format!("{replay_disagreements} of {}", docs.len()),
        ]);
            table.row(vec![
            "replica check: `exact_duplicate` links whose replayed payloads or normalized texts \
             are identical"
                .into(),
            format!("{identical} of {}", exact_links.len()),
        ]);
            let (mut all_c, mut ok_c) = (0, 0);
            for (n, good) in flagged_compared.values() {
                all_c += n;
                ok_c += good;
            }
            table.row(vec![
                "precision of all links on the sets the dedup compared (same rule)".into(),
                format!(
                    "{:.4} ({ok_c} of {all_c})",
                    ok_c as f64 / all_c.max(1) as f64
                ),
            ]);
            let mut kinds: Vec<_> = flagged.iter().collect();
            kinds.sort();
            let (mut all, mut ok) = (0, 0);
            for (kind, (n, good, strict)) in kinds {
                all += n;
                ok += good;
                table.row(vec![
                    format!("precision of `{kind}` links"),
                    format!(
                        "{:.4} ({good} of {n} with true {} ≥ {}; ≥ {}: {strict})",
                        *good as f64 / (*n).max(1) as f64,
                        if *kind == "contained" {
                            "containment"
                        } else {
                            "J"
                        },
                        if *kind == "contained" { 0.85 } else { 0.75 },
                        if *kind == "contained" { 0.9 } else { 0.8 },
                    ),
                ]);
            }
            table.row(vec![
                "precision, all links".into(),
                format!("**{:.4}** ({ok} of {all})", ok as f64 / all.max(1) as f64),
            ]);
            // A cluster "built from shared navigation" has a link whose pages are alike only in
            // their chrome: their content (the main view by per-page rules, which leaves out nav,
            // header, footer, link-dense and tiny blocks) is not alike (J or containment < 0.5)
            // and they have no content block in common. Every cluster is connected by its links,
            // so no such link means no such cluster.
            let rules = prep.config().boilerplate;
            let navigation_only = links
                .iter()
                .filter(|&&(i, j, kind)| {
                    let (a, b) = (&docs[i].main, &docs[j].main);
                    if a.is_empty() || b.is_empty() {
                        return false;
                    }
                    let content = if kind == "contained" {
                        dedupcrawl_sketch::intersection_size(a, b) as f64 / a.len() as f64
                    } else {
                        dedupcrawl_sketch::jaccard(a, b)
                    };
                    let theirs: std::collections::HashSet<u64> = docs[j]
                        .page
                        .extracted
                        .blocks
                        .iter()
                        .filter(|block| rules.is_content_candidate(block))
                        .map(|block| block.fingerprint())
                        .collect();
                    let shared_content = docs[i].page.extracted.blocks.iter().any(|block| {
                        rules.is_content_candidate(block) && theirs.contains(&block.fingerprint())
                    });
                    content < 0.5 && !shared_content
                })
                .count();
            table.row(vec![
            "links whose pages share only chrome (no content block in common, main-view J or containment < 0.5): clusters built from navigation".into(),
            format!("**{navigation_only}** of {all}"),
        ]);
            println!("{}", table.render());

            // MinHash estimate (the `similarity` of near_duplicate lines) against the exact J of
            // the compared sets, by the size of the smaller set.
            let mut errors: Vec<(&str, Vec<f64>)> =
                vec![("< 100", vec![]), ("100-999", vec![]), ("≥ 1000", vec![])];
            for &(i, j, kind) in &links {
                if kind != "near_duplicate" {
                    continue;
                }
                let Some(estimate) = docs[i].similarity else {
                    continue;
                };
                let size = compared[i].len().min(compared[j].len());
                let bucket = if size < 100 {
                    0
                } else if size < 1000 {
                    1
                } else {
                    2
                };
                errors[bucket].1.push(estimate - compared_j(i, j));
            }
            let mut table = Table::new(&[
                "near_duplicate links, smaller set (shingles)",
                "links",
                "mean (estimate − exact J as compared)",
                "max",
                "exact J as compared < 0.8",
            ]);
            for (label, e) in &errors {
                if e.is_empty() {
                    continue;
                }
                let exact_low = links
                    .iter()
                    .filter(|&&(i, j, kind)| {
                        kind == "near_duplicate" && {
                            let size = compared[i].len().min(compared[j].len());
                            (match *label {
                                "< 100" => size < 100,
                                "100-999" => (100..1000).contains(&size),
                                _ => size >= 1000,
                            }) && compared_j(i, j) < 0.8
                        }
                    })
                    .count();
                table.row(vec![
                    label.to_string(),
                    e.len().to_string(),
                    format!("{:+.3}", e.iter().sum::<f64>() / e.len() as f64),
                    format!("{:+.3}", e.iter().cloned().fold(f64::MIN, f64::max)),
                    exact_low.to_string(),
                ]);
            }
            println!("{}", table.render());

            if !missed.is_empty() {
                let at_09: Vec<_> = missed.iter().filter(|m| m.0 >= 0.9).collect();
                let both_flagged = at_09
                    .iter()
                    .filter(|m| docs[m.1].decision != "new" && docs[m.2].decision != "new")
                    .count();
                let both_new = at_09
                    .iter()
                    .filter(|m| docs[m.1].decision == "new" && docs[m.2].decision == "new")
                    .count();
                println!(
                    "Missed pairs at J ≥ 0.9: {} — {both_flagged} with both documents flagged but in different clusters, {} with one new, {both_new} with both new.\n",
                    at_09.len(),
                    at_09.len() - both_flagged - both_new
                );
                println!(
                    "Missed pairs (true J ≥ 0.8, not clustered), worst first — {} in all:\n",
                    missed.len()
                );
                for &(j, a, b) in missed.iter().take(list_length()) {
                    println!(
                        "- J = {j:.3}: `{}` ({}) / `{}` ({})",
                        short(&docs[a].path),
                        docs[a].decision,
                        short(&docs[b].path),
                        docs[b].decision
                    );
                }
                println!();
            }
            if !doc_missed.is_empty() {
                println!(
                    "Documents left new although an earlier new document's compared set has J ≥ 0.9 — {} in all:\n",
                    doc_missed.len()
                );
                for &(j, a, b) in doc_missed.iter().take(4) {
                    println!(
                        "- J = {j:.3}: `{}` vs `{}`",
                        short(&docs[a].path),
                        short(&docs[b].path)
                    );
                }
                println!();
            }
            if !false_links.is_empty() {
                false_links.sort_by(|x, y| x.3.total_cmp(&y.3));
                println!(
                    "Flagged links below the precision rule, lowest first — {} in all:\n",
                    false_links.len()
                );
                for &(i, j, kind, value, full_j) in false_links.iter().take(list_length()) {
                    println!(
                        "- {kind} {value:.3}{} (as compared {:.3}): `{}` → `{}`",
                        full_j.map_or(String::new(), |f| format!(" (full-view J {f:.3})")),
                        compared_j(i, j),
                        short(&docs[i].path),
                        short(&docs[j].path)
                    );
                }
                println!();
            }

            // Largest clusters and what their members share.
            let mut sizes: HashMap<usize, Vec<usize>> = HashMap::new();
            for (i, &c) in cluster.iter().enumerate() {
                sizes.entry(c).or_default().push(i);
            }
            let mut clusters: Vec<Vec<usize>> =
                sizes.into_values().filter(|v| v.len() > 1).collect();
            clusters.sort_by_key(|v| std::cmp::Reverse(v.len()));
            println!(
                "{} clusters of ≥ 2 documents; the largest, with what every member shares (blocks of the original found in all members):\n",
                clusters.len()
            );
            let mut table = Table::new(&[
                "size",
                "original",
                "links (exact/near/contained)",
                "mean true J to original (main-view, full-view)",
                "blocks shared by all: words, of them in chrome/non-content blocks",
                "longest shared block",
            ]);
            for members in clusters.iter().take(6) {
                let original = members
                    .iter()
                    .copied()
                    .find(|&i| docs[i].duplicate_of.is_none())
                    .unwrap_or(members[0]);
                let count = |k: &str| members.iter().filter(|&&i| docs[i].decision == k).count();
                let mean = |f: &dyn Fn(&Doc) -> &Vec<u64>| -> f64 {
                    let others: Vec<f64> = members
                        .iter()
                        .filter(|&&i| i != original)
                        .map(|&i| dedupcrawl_sketch::jaccard(f(&docs[i]), f(&docs[original])))
                        .collect();
                    others.iter().sum::<f64>() / others.len().max(1) as f64
                };
                let member_blocks: Vec<std::collections::HashSet<u64>> = members
                    .iter()
                    .map(|&i| {
                        docs[i]
                            .page
                            .extracted
                            .blocks
                            .iter()
                            .map(|b| b.fingerprint())
                            .collect()
                    })
                    .collect();
                let (mut words, mut chrome_words, mut longest) = (0usize, 0usize, String::new());
                let mut seen = std::collections::HashSet::new();
                for block in &docs[original].page.extracted.blocks {
                    if !seen.insert(block.fingerprint())
                        || !member_blocks
                            .iter()
                            .all(|s| s.contains(&block.fingerprint()))
                    {
                        continue;
                    }
                    words += block.word_count();
                    if !rules.is_content_candidate(block) {
                        chrome_words += block.word_count();
                    }
                    if block.text.len() > longest.len() {
                        longest = block.text.clone();
                    }
                }
                let mut longest: String = longest.chars().take(60).collect();
                longest = longest.replace('|', "/").replace('`', "'");
                table.row(vec![
                    members.len().to_string(),
                    format!("`{}`", short(&docs[original].path)),
                    format!(
                        "{}/{}/{}",
                        count("exact_duplicate"),
                        count("near_duplicate"),
                        count("contained")
                    ),
                    format!("{:.2}, {:.2}", mean(&|d| &d.main), mean(&|d| &d.full)),
                    format!("{words}, {chrome_words}"),
                    format!("\"{longest}\""),
                ]);
            }
            println!("{}", table.render());
        }
    }
    Ok(())
}

/// Pages whose compared text and truth text are printed to stderr (`BENCH_DEBUG`, paths
/// separated by commas, matched at the end).
fn debug_paths() -> Vec<String> {
    std::env::var("BENCH_DEBUG")
        .map(|v| v.split(',').map(str::to_string).collect())
        .unwrap_or_default()
}

/// How many entries the lists of missed pairs and false links show (`BENCH_LIST`, default 6).
fn list_length() -> usize {
    std::env::var("BENCH_LIST")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(6)
}

/// What an `exact_duplicate` decision is keyed on: the payload digest and the digest of the
/// page's normalized text (its own content, template included).
type ExactKeys = (
    dedupcrawl_sketch::PayloadDigest,
    Option<dedupcrawl_sketch::TokenDigest>,
);

/// A decision as the decision lines name it: kind and the page it links to.
fn decision_of(decision: &dedupcrawl_index::DedupDecision) -> (&'static str, Option<&str>) {
    use dedupcrawl_index::DedupDecision;
    match decision {
        DedupDecision::New { .. } => ("new", None),
        DedupDecision::ExactDuplicate { of, .. } => ("exact_duplicate", Some(of.name.as_str())),
        DedupDecision::NearDuplicate { of, .. } => ("near_duplicate", Some(of.name.as_str())),
        DedupDecision::Contained { within, .. } => ("contained", Some(within.name.as_str())),
    }
}
