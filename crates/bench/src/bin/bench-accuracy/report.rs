//! The Markdown report on one decisions file against one truth.

use std::collections::HashMap;

use dedupcrawl_bench::{Table, thousands};

use crate::measures::{Clusters, DecisionRun, PairRecall, Precision, TruthPairs, is_containment};
use crate::{Doc, Truth};

/// The report on one decisions file against one truth, printed as Markdown.
pub(crate) fn report(run: &DecisionRun<'_>, truth: Truth) {
    let pairs = TruthPairs::new(run.docs, truth);
    let clusters = Clusters::of(run.docs);
    let recall = PairRecall::of(&pairs, &clusters);
    let precision = Precision::of(run, &pairs, &clusters);
    // The sites of the run: the first part of the documents' paths under the root.
    let mut sites: Vec<&str> = run
        .docs
        .iter()
        .map(|doc| doc.path.split('/').next().unwrap_or(""))
        .collect();
    sites.sort_unstable();
    sites.dedup();
    println!(
        "### Accuracy, `dedupcrawl dedup --view {}` on {}/, truth {truth:?}\n",
        run.view_name,
        sites.join("/ ")
    );
    println!(
        "{} documents ({} with no tokens left out), {} decisions linking to an original{}. Truth: {}. Exact pairs: {} shingle postings expanded into {} pair increments (longest posting list {}, no cap), {:.1}s.\n",
        thousands(run.docs.len() as f64),
        run.docs.len() - pairs.members.len(),
        thousands(clusters.links.len() as f64),
        if clusters.unresolved > 0 {
            format!(" ({} pointing outside the run)", clusters.unresolved)
        } else {
            String::new()
        },
        truth.describe(),
        thousands(pairs.sets.iter().map(|s| s.len()).sum::<usize>() as f64),
        thousands(pairs.counts.expanded_pairs as f64),
        thousands(pairs.counts.longest_posting as f64),
        pairs.seconds
    );
    print_measures(run, &clusters, &recall, &precision);
    print_estimate_errors(run, &clusters);
    print_misses(run, &recall, &precision);
    print_largest_clusters(run, &clusters);
}

/// The table of recall and precision figures.
pub(crate) fn print_measures(
    run: &DecisionRun<'_>,
    clusters: &Clusters<'_>,
    recall: &PairRecall,
    precision: &Precision<'_>,
) {
    let links = &clusters.links;
    let mut table = Table::new(&["measure", "value"]);
    for (t, threshold) in [0.9, 0.8].iter().enumerate() {
        table.row(vec![
            format!("recall at true J ≥ {threshold}"),
            format!(
                "**{:.4}** ({} of {} pairs in one cluster)",
                recall.found[t] as f64 / recall.true_pairs[t].max(1) as f64,
                thousands(recall.found[t] as f64),
                thousands(recall.true_pairs[t] as f64)
            ),
        ]);
    }
    table.row(vec![
        "recall of parts (true containment ≥ 0.9 in a page at least twice as long; contained in it, listed in its `contains`, or one cluster)".into(),
        format!(
            "**{:.4}** ({} of {})",
            recall.parts_linked as f64 / recall.parts.max(1) as f64,
            thousands(recall.parts_linked as f64),
            thousands(recall.parts as f64)
        ),
    ]);
    let document_recall = &run.document_recall.at;
    for (t, threshold) in [0.9, 0.8].iter().enumerate() {
        table.row(vec![
            format!("document recall at J ≥ {threshold} on the sets the dedup compared (an earlier *new* document that close ⇒ must not be new)"),
            format!(
                "{:.4} ({} of {})",
                document_recall[t].1 as f64 / document_recall[t].0.max(1) as f64,
                thousands(document_recall[t].1 as f64),
                thousands(document_recall[t].0 as f64)
            ),
        ]);
    }
    let exact_links: Vec<_> = links.iter().filter(|l| l.2 == "exact_duplicate").collect();
    let exact_keys = &run.replay.exact_keys;
    let identical = exact_links
        .iter()
        .filter(|&&&(i, j, _)| {
            let ((payload_i, text_i), (payload_j, text_j)) = (&exact_keys[i], &exact_keys[j]);
            payload_i == payload_j || (text_i.is_some() && text_i == text_j)
        })
        .count();
    table.row(vec![
        "replica check: decisions of the replay that differ from the run's (kind or original)"
            .into(),
        format!("{} of {}", run.replay.disagreements, run.docs.len()),
    ]);
    table.row(vec![
        "replica check: `exact_duplicate` links whose replayed payloads or normalized texts \
         are identical"
            .into(),
        format!("{identical} of {}", exact_links.len()),
    ]);
    let (mut all_c, mut ok_c) = (0, 0);
    for (n, good) in precision.compared.values() {
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
    let mut kinds: Vec<_> = precision.by_kind.iter().collect();
    kinds.sort();
    let (mut all, mut ok) = (0, 0);
    let (mut listed, mut listed_ok) = (0, 0);
    for (kind, (n, good, strict)) in kinds {
        // A `contains` entry is no duplicate decision (both pages are archived): counted
        // apart, so the precision of the decisions stays what issue 10 measures.
        if *kind == "contains" {
            listed += n;
            listed_ok += good;
        } else {
            all += n;
            ok += good;
        }
        table.row(vec![
            format!("precision of `{kind}` links"),
            format!(
                "{:.4} ({good} of {n} with true {} ≥ {}; ≥ {}: {strict})",
                *good as f64 / (*n).max(1) as f64,
                if is_containment(kind) {
                    "containment"
                } else {
                    "J"
                },
                if is_containment(kind) { 0.85 } else { 0.75 },
                if is_containment(kind) { 0.9 } else { 0.8 },
            ),
        ]);
    }
    table.row(vec![
        "precision, all links".into(),
        format!("**{:.4}** ({ok} of {all})", ok as f64 / all.max(1) as f64),
    ]);
    table.row(vec![
        "precision, all links and `contains` entries".into(),
        format!(
            "{:.4} ({} of {})",
            (ok + listed_ok) as f64 / (all + listed).max(1) as f64,
            ok + listed_ok,
            all + listed
        ),
    ]);
    table.row(vec![
        "links whose pages share only chrome (no content block in common, main-view J or containment < 0.5): clusters built from navigation".into(),
        format!("**{}** of {all}", navigation_only_links(run, links)),
    ]);
    println!("{}", table.render());
}

/// Links whose pages are alike only in their chrome: their content (the main view by
/// per-page rules, which leaves out nav, header, footer, link-dense and tiny blocks) is not
/// alike (J or containment < 0.5) and they have no content block in common. Every cluster is
/// connected by its links, so no such link means no cluster built from shared navigation.
pub(crate) fn navigation_only_links(
    run: &DecisionRun<'_>,
    links: &[(usize, usize, &str)],
) -> usize {
    let (docs, rules) = (run.docs, run.prep.config().boilerplate);
    links
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
        .count()
}

/// The MinHash estimate (the `similarity` of near_duplicate lines) against the exact J of the
/// compared sets, by the size of the smaller set.
pub(crate) fn print_estimate_errors(run: &DecisionRun<'_>, clusters: &Clusters<'_>) {
    let (docs, replay) = (run.docs, run.replay);
    let size_bucket = |i: usize, j: usize| {
        let size = replay.compared[i].len().min(replay.compared[j].len());
        if size < 100 {
            0
        } else if size < 1000 {
            1
        } else {
            2
        }
    };
    let labels = ["< 100", "100-999", "≥ 1000"];
    let mut errors: [Vec<f64>; 3] = Default::default();
    let mut exact_low = [0usize; 3];
    for &(i, j, kind) in &clusters.links {
        if kind != "near_duplicate" {
            continue;
        }
        let bucket = size_bucket(i, j);
        exact_low[bucket] += (replay.jaccard(i, j) < 0.8) as usize;
        let Some(estimate) = docs[i].similarity else {
            continue;
        };
        errors[bucket].push(estimate - replay.jaccard(i, j));
    }
    let mut table = Table::new(&[
        "near_duplicate links, smaller set (shingles)",
        "links",
        "mean (estimate − exact J as compared)",
        "max",
        "exact J as compared < 0.8",
    ]);
    for ((label, e), low) in labels.iter().zip(&errors).zip(exact_low) {
        if e.is_empty() {
            continue;
        }
        table.row(vec![
            label.to_string(),
            e.len().to_string(),
            format!("{:+.3}", e.iter().sum::<f64>() / e.len() as f64),
            format!("{:+.3}", e.iter().cloned().fold(f64::MIN, f64::max)),
            low.to_string(),
        ]);
    }
    println!("{}", table.render());
}

/// The missed pairs, the documents left new and the links below the precision rule.
pub(crate) fn print_misses(run: &DecisionRun<'_>, recall: &PairRecall, precision: &Precision<'_>) {
    let (docs, short) = (run.docs, |p: &str| run.corpus.short(p));
    let missed = &recall.missed;
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
    if !recall.parts_missed.is_empty() {
        println!(
            "Parts not linked to the page they are inside, most inside first — {} in all:\n",
            recall.parts_missed.len()
        );
        for &(inside, part, page) in recall.parts_missed.iter().take(list_length()) {
            println!(
                "- {inside:.3} inside: `{}` ({}) in `{}` ({})",
                short(&docs[part].path),
                docs[part].decision,
                short(&docs[page].path),
                docs[page].decision
            );
        }
        println!();
    }
    let doc_missed = &run.document_recall.missed;
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
    if !precision.false_links.is_empty() {
        let mut false_links = precision.false_links.clone();
        false_links.sort_by(|x, y| x.3.total_cmp(&y.3));
        println!(
            "Flagged links below the precision rule, lowest first — {} in all:\n",
            false_links.len()
        );
        for &(i, j, kind, value, full_j) in false_links.iter().take(list_length()) {
            println!(
                "- {kind} {value:.3}{} (as compared {:.3}): `{}` → `{}`",
                full_j.map_or(String::new(), |f| format!(" (full-view J {f:.3})")),
                run.replay.jaccard(i, j),
                short(&docs[i].path),
                short(&docs[j].path)
            );
        }
        println!();
    }
}

/// The largest clusters and what their members share.
pub(crate) fn print_largest_clusters(run: &DecisionRun<'_>, clusters: &Clusters<'_>) {
    let (docs, rules) = (run.docs, run.prep.config().boilerplate);
    let mut sizes: HashMap<usize, Vec<usize>> = HashMap::new();
    for (i, &c) in clusters.of.iter().enumerate() {
        sizes.entry(c).or_default().push(i);
    }
    let mut clusters: Vec<Vec<usize>> = sizes.into_values().filter(|v| v.len() > 1).collect();
    // Largest first, then the earliest first: the same order on every run.
    clusters.sort_by_key(|v| (std::cmp::Reverse(v.len()), v[0]));
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
            format!("`{}`", run.corpus.short(&docs[original].path)),
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

/// How many entries the lists of missed pairs and false links show (`BENCH_LIST`, default 6).
pub(crate) fn list_length() -> usize {
    std::env::var("BENCH_LIST")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(6)
}
