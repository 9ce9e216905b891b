//! `dedupcrawl compare A B [--exact] [--explain]`: every estimate for two documents, or with
//! `--exact` the figures a decision is verified on: the exact resemblance and containment of
//! the two compared texts' shingle sets, as the index keeps them (each page on its own: no
//! host template is learnt from two files).

use std::path::{Path, PathBuf};

use anyhow::Context;
use dedupcrawl_index::{compared_shingle_set, shingle_counts};
use dedupcrawl_pipeline::DedupSettings;
use dedupcrawl_sketch::{BottomSketch, MinHasher, ModSample, containment, jaccard, shingle_set};
use dedupcrawl_textprep::{PreparedPage, TextPrep, View};

#[derive(clap::Args)]
pub struct CompareArgs {
    /// First document (HTML, or plain text if it does not look like HTML).
    pub a: PathBuf,
    /// Second document.
    pub b: PathBuf,
    /// Also print the text blocks the two share and those unique to each.
    #[arg(long)]
    pub explain: bool,
    /// Print only the exact figures, counted on the shingle sets a dedup decision is verified
    /// on (32 bits a shingle, as the index keeps them): the `verified` of a crawl-log reason.
    #[arg(long)]
    pub exact: bool,
    /// Which text to compare: main (boilerplate out) or full.
    #[arg(long, value_enum, default_value = "main")]
    pub view: ViewArg,
    /// Tokens per shingle.
    #[arg(long, default_value_t = 5)]
    pub shingle_size: usize,
    /// MinHash signature length (also the MIN_s sketch size).
    #[arg(long, default_value_t = 128)]
    pub num_hashes: usize,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

#[derive(Clone, Copy, clap::ValueEnum)]
pub enum ViewArg {
    Main,
    Full,
}

impl From<ViewArg> for View {
    fn from(v: ViewArg) -> View {
        match v {
            ViewArg::Main => View::MainContent,
            ViewArg::Full => View::FullPage,
        }
    }
}

/// Reads a document as HTML, in whatever charset it declares (BOM, `<meta charset>`) or
/// sniffs as, like the crawler; plain text is wrapped so each paragraph is a block.
pub fn read_document(path: &Path) -> anyhow::Result<String> {
    let bytes = std::fs::read(path)
        .with_context(|| format!("cannot read {}: check the path", path.display()))?;
    let text = dedupcrawl_fetch::decode_bytes(&bytes, None, true).text;
    let looks_like_html = text.trim_start().starts_with('<')
        || path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("html") || e.eq_ignore_ascii_case("htm"));
    if looks_like_html {
        return Ok(text);
    }
    let mut html = String::from("<html><body>");
    for paragraph in text.split("\n\n") {
        html.push_str("<p>");
        for c in paragraph.chars() {
            match c {
                '<' => html.push_str("&lt;"),
                '&' => html.push_str("&amp;"),
                _ => html.push(c),
            }
        }
        html.push_str("</p>");
    }
    html.push_str("</body></html>");
    Ok(html)
}

#[derive(serde::Serialize)]
struct Comparison {
    a: String,
    b: String,
    view: View,
    shingle_size: usize,
    tokens: [usize; 2],
    shingles: [usize; 2],
    exact_resemblance: f64,
    exact_containment_a_in_b: f64,
    exact_containment_b_in_a: f64,
    minhash_estimate: Option<f64>,
    min_s_estimate: f64,
    mod_m_resemblance: f64,
    mod_m_containment_a_in_b: f64,
    mod_m_containment_b_in_a: f64,
    mod_m_moduli: [u64; 2],
}

pub fn run(args: CompareArgs) -> anyhow::Result<()> {
    let settings = DedupSettings::default();
    let prep = TextPrep::new(settings.text);
    let view: View = args.view.into();
    let (html_a, html_b) = (read_document(&args.a)?, read_document(&args.b)?);
    // Each page on its own: the view `extract` prints.
    let prepare = |html: &str| match view {
        View::MainContent => prep.prepare_alone(html, None),
        View::FullPage => prep.prepare(html),
    };
    let (page_a, page_b) = (prepare(&html_a), prepare(&html_b));
    let no_host_template = |_: u64| false;
    let tokens = |page: &PreparedPage| prep.token_hashes(page, view, &no_host_template);
    let (tokens_a, tokens_b) = (tokens(&page_a), tokens(&page_b));
    let (sa, sb) = (
        shingle_set(&tokens_a, args.shingle_size),
        shingle_set(&tokens_b, args.shingle_size),
    );
    if args.exact {
        print_exact(&args, [tokens_a.len(), tokens_b.len()], &sa, &sb)?;
        if args.explain {
            explain(&prep, &page_a, &page_b, view);
        }
        return Ok(());
    }
    let hasher = MinHasher::new(args.num_hashes);
    let minhash = match (hasher.signature(&sa), hasher.signature(&sb)) {
        (Some(x), Some(y)) => Some(x.similarity(&y)),
        _ => None,
    };
    let (ma, mb) = (ModSample::from_shingles(&sa), ModSample::from_shingles(&sb));
    let comparison = Comparison {
        a: args.a.display().to_string(),
        b: args.b.display().to_string(),
        view,
        shingle_size: args.shingle_size,
        tokens: [tokens_a.len(), tokens_b.len()],
        shingles: [sa.len(), sb.len()],
        exact_resemblance: jaccard(&sa, &sb),
        exact_containment_a_in_b: containment(&sa, &sb),
        exact_containment_b_in_a: containment(&sb, &sa),
        minhash_estimate: minhash,
        min_s_estimate: BottomSketch::from_shingles(&sa, args.num_hashes)
            .resemblance(&BottomSketch::from_shingles(&sb, args.num_hashes)),
        mod_m_resemblance: ma.resemblance(&mb),
        mod_m_containment_a_in_b: ma.containment_in(&mb),
        mod_m_containment_b_in_a: mb.containment_in(&ma),
        mod_m_moduli: [ma.modulus, mb.modulus],
    };
    if args.json {
        println!("{}", serde_json::to_string_pretty(&comparison)?);
    } else {
        let c = &comparison;
        println!(
            "A: {} ({} tokens, {} shingles)",
            c.a, c.tokens[0], c.shingles[0]
        );
        println!(
            "B: {} ({} tokens, {} shingles)",
            c.b, c.tokens[1], c.shingles[1]
        );
        println!("view: {:?}, shingle size w = {}", c.view, c.shingle_size);
        println!(
            "exact resemblance |A∩B|/|A∪B|        {:.4}",
            c.exact_resemblance
        );
        match c.minhash_estimate {
            Some(m) => println!(
                "MinHash estimate (k={:<4})             {m:.4}",
                args.num_hashes
            ),
            None => println!("MinHash estimate                      (a document has no shingles)"),
        }
        println!(
            "MIN_s estimate (s={:<4})               {:.4}",
            args.num_hashes, c.min_s_estimate
        );
        println!(
            "MOD_m resemblance (m={}/{})           {:.4}",
            c.mod_m_moduli[0], c.mod_m_moduli[1], c.mod_m_resemblance
        );
        println!(
            "containment A in B: exact {:.4}, MOD_m {:.4}",
            c.exact_containment_a_in_b, c.mod_m_containment_a_in_b
        );
        println!(
            "containment B in A: exact {:.4}, MOD_m {:.4}",
            c.exact_containment_b_in_a, c.mod_m_containment_b_in_a
        );
    }
    if args.explain {
        explain(&prep, &page_a, &page_b, view);
    }
    Ok(())
}

/// The exact figures of `--exact`, on the verification sets of the two shingle sets.
fn print_exact(args: &CompareArgs, tokens: [usize; 2], a: &[u64], b: &[u64]) -> anyhow::Result<()> {
    let (a, b) = (compared_shingle_set(a), compared_shingle_set(b));
    let counts = shingle_counts(&a, &b);
    let b_in_a = shingle_counts(&b, &a).containment();
    if args.json {
        let exact = serde_json::json!({
            "a": args.a.display().to_string(),
            "b": args.b.display().to_string(),
            "shingle_size": args.shingle_size,
            "tokens": tokens,
            "shingles": counts,
            "resemblance": counts.resemblance(),
            "containment_a_in_b": counts.containment(),
            "containment_b_in_a": b_in_a,
        });
        println!("{}", serde_json::to_string_pretty(&exact)?);
        return Ok(());
    }
    println!(
        "A: {} ({} tokens, {} shingles)",
        args.a.display(),
        tokens[0],
        counts.page
    );
    println!(
        "B: {} ({} tokens, {} shingles)",
        args.b.display(),
        tokens[1],
        counts.other
    );
    println!("shared shingles                 {}", counts.shared);
    println!(
        "exact resemblance |A∩B|/|A∪B|   {:.4}",
        counts.resemblance()
    );
    println!(
        "exact containment A in B        {:.4}",
        counts.containment()
    );
    println!("exact containment B in A        {b_in_a:.4}");
    Ok(())
}

/// Shared and unique blocks of the compared view.
fn explain(prep: &TextPrep, a: &PreparedPage, b: &PreparedPage, view: View) {
    let no_template = |_: u64| false;
    let blocks = |page| -> Vec<(u64, String)> {
        prep.view_blocks(page, view, &no_template)
            .map(|block| (block.fingerprint(), block.text.clone()))
            .collect()
    };
    let (blocks_a, blocks_b) = (blocks(a), blocks(b));
    let in_b: std::collections::HashSet<u64> = blocks_b.iter().map(|(f, _)| *f).collect();
    let in_a: std::collections::HashSet<u64> = blocks_a.iter().map(|(f, _)| *f).collect();
    let show = |title: &str, items: Vec<&String>| {
        println!("\n== {title} ({} blocks)", items.len());
        for text in items {
            let short: String = text.chars().take(160).collect();
            println!(
                "  {short}{}",
                if text.chars().count() > 160 {
                    " …"
                } else {
                    ""
                }
            );
        }
    };
    show(
        "shared",
        blocks_a
            .iter()
            .filter(|(f, _)| in_b.contains(f))
            .map(|(_, t)| t)
            .collect(),
    );
    show(
        "only in A",
        blocks_a
            .iter()
            .filter(|(f, _)| !in_b.contains(f))
            .map(|(_, t)| t)
            .collect(),
    );
    show(
        "only in B",
        blocks_b
            .iter()
            .filter(|(f, _)| !in_a.contains(f))
            .map(|(_, t)| t)
            .collect(),
    );
}
