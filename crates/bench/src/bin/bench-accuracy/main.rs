//! Accuracy of `dedupcrawl dedup` on the real corpus against exact pairwise Jaccard.
//!
//! `bench-accuracy --root CORPUS_ROOT --decisions VIEW=FILE [--decisions VIEW=FILE]
//! [--near-method super_shingles]` (VIEW is `main` or `full`; FILE the JSONL of
//! `dedupcrawl dedup --view VIEW --out FILE`, run with the same `--near-method`, which the
//! replay of the dedup uses too).
//!
//! Truth: for every document of the JSONL, the set of 5-shingles of its tokens by the dedup's
//! token definition, computed independently of the code under test (`dedupcrawl_bench::truth`:
//! a scraper DOM walk for `full`, rs-trafilatura's own text of the page for `main`, tokens by
//! other code; text only: link targets are no tokens of a page's text), with a fallback to the full page when the main text has
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
//! (0.9 − 0.05) for `contained`, and for each page a new page lists in `contains` (the
//! listed page inside the new one).

use dedupcrawl_bench::{Args, load_page};
use dedupcrawl_sketch::shingle_set;
use dedupcrawl_textprep::{PreparedPage, TextPrep, TextPrepConfig, View};
use rayon::prelude::*;

const W: usize = 5;

mod measures;
mod replay;
mod report;

use measures::DecisionRun;
use replay::DocumentRecall;

struct Doc {
    path: String,
    decision: String,
    duplicate_of: Option<String>,
    /// Earlier pages a new page contains (the decision line's `contains`).
    contains: Vec<String>,
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

    /// The document's shingle set under this truth.
    fn set(self, d: &Doc) -> &Vec<u64> {
        match self {
            Truth::Full => &d.full,
            Truth::Own => &d.own,
            Truth::Plain => &d.plain,
            Truth::Extractor => &d.main,
        }
    }
}

/// The corpus root, to name pages and sites as `dedupcrawl dedup` was given them.
struct Corpus {
    root: std::path::PathBuf,
    prefix: String,
}

impl Corpus {
    /// A page's path inside the corpus (`std/vec/struct.Vec.html`).
    fn short(&self, path: &str) -> String {
        path.strip_prefix(&self.prefix).unwrap_or(path).to_string()
    }

    /// The site directory a page is in (`std`): its host in the dedup.
    fn site(&self, path: &str) -> String {
        self.short(path).split('/').next().unwrap_or("").to_string()
    }
}

fn main() -> anyhow::Result<()> {
    let args = Args::from_env();
    let root = args
        .value("--root")
        .map(std::path::PathBuf::from)
        .map_or_else(dedupcrawl_bench::corpus_root, Ok)?;
    let corpus = Corpus {
        prefix: format!("{}/", root.display()),
        root,
    };
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
        let docs = load_docs(file, &prep, &corpus)?;
        let replay = replay::replay(&docs, view, near_method, &corpus)?;
        let document_recall = DocumentRecall::of(&docs, &replay);
        let run = DecisionRun {
            view,
            view_name,
            docs: &docs,
            corpus: &corpus,
            prep: &prep,
            replay: &replay,
            document_recall: &document_recall,
        };
        let truths: &[Truth] = match view {
            View::FullPage => &[Truth::Full],
            View::MainContent => &[Truth::Own, Truth::Plain, Truth::Extractor],
        };
        for &truth in truths {
            report::report(&run, truth);
        }
    }
    Ok(())
}

/// The documents of a decisions file with every truth's shingle set.
fn load_docs(file: &str, prep: &TextPrep, corpus: &Corpus) -> anyhow::Result<Vec<Doc>> {
    let lines: Vec<serde_json::Value> = std::fs::read_to_string(file)?
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(serde_json::from_str)
        .collect::<Result<_, _>>()?;
    let mut docs: Vec<Doc> = lines
        .par_iter()
        .map(|line| -> anyhow::Result<Doc> {
            let path = line["path"].as_str().unwrap_or_default().to_string();
            let html = load_page(std::path::Path::new(&path))?.html;
            let page = prep.prepare(&html);
            let blocks = dedupcrawl_bench::template_truth::main_blocks(&html, &corpus.short(&path));
            let mut full_tokens =
                dedupcrawl_bench::truth::tokens(&dedupcrawl_textprep::extract_text_with_dom(&html));
            let mut main_tokens =
                dedupcrawl_bench::truth::tokens(&dedupcrawl_bench::truth::main_text(&html));
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
                contains: line["contains"]
                    .as_array()
                    .map(|pages| {
                        pages
                            .iter()
                            .filter_map(|page| page.as_str().map(str::to_string))
                            .collect()
                    })
                    .unwrap_or_default(),
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
    // The template-aware truth needs every page of a host: the template is what the host's
    // distinct pages share.
    let pages: Vec<(String, Vec<dedupcrawl_bench::template_truth::TruthBlock>)> = docs
        .iter_mut()
        .map(|d| (corpus.site(&d.path), std::mem::take(&mut d.blocks)))
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
    Ok(docs)
}
