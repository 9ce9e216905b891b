//! Serves the dedupcrawl test site until Ctrl-C, for manual crawls.
//!
//! `cargo run -p dedupcrawl-testsite [-- --json]`: prints the host URLs (and with `--json`
//! the full ground truth as JSON). `-- --varied SEED [--json]` serves the randomized "unseen
//! site" hosts of that seed instead (`VariedSites`), e.g. to crawl them with the release
//! binary and ask `dedupcrawl why` about a decision. `-- --url-variants` serves the URL
//! variants host (`UrlVariantsSite`) and prints `seed URL`, then one line per class of
//! variants (`variants CLASS COUNT`), for `benches/urlrules/run`.

use dedupcrawl_testsite::{TestSite, UrlVariantsSite, VariedSites};

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let json = args.iter().any(|a| a == "--json");
    if let Some(at) = args.iter().position(|a| a == "--varied") {
        let Some(seed) = args.get(at + 1).and_then(|s| s.parse::<u64>().ok()) else {
            eprintln!("--varied needs a seed, a whole number: --varied 11");
            std::process::exit(2);
        };
        return serve_varied(seed, json).await;
    }
    if args.iter().any(|a| a == "--url-variants") {
        return serve_url_variants().await;
    }
    let site = TestSite::start().await?;
    let expected = site.expected();
    println!("host A (The Meridian Gazette): {}", site.main_url());
    println!("host B (The Northern Wire):    {}", site.host_b_url());
    println!("robots.txt: {}robots.txt", site.main_url());
    println!(
        "{} distinct pages, {} duplicate groups, {} disallowed URLs",
        expected.distinct_pages.len(),
        expected.duplicate_groups.len(),
        expected.disallowed.len()
    );
    if json {
        match serde_json::to_string_pretty(&expected) {
            Ok(s) => println!("{s}"),
            Err(e) => eprintln!("cannot serialise the expectations: {e}"),
        }
    }
    println!("Serving; press Ctrl-C to stop.");
    tokio::signal::ctrl_c().await?;
    println!("Stopped; {} requests served.", site.request_log().len());
    Ok(())
}

async fn serve_varied(seed: u64, json: bool) -> std::io::Result<()> {
    let sites = VariedSites::start(seed).await?;
    let truth = sites.truth();
    for host in &truth.hosts {
        println!("{:<10} {:?}: {}", host.role, host.style, host.base);
    }
    if json {
        match serde_json::to_string_pretty(truth) {
            Ok(s) => println!("{s}"),
            Err(e) => eprintln!("cannot serialise the truth: {e}"),
        }
    }
    println!("Serving seed {seed}; press Ctrl-C to stop.");
    tokio::signal::ctrl_c().await?;
    Ok(())
}

async fn serve_url_variants() -> std::io::Result<()> {
    let site = UrlVariantsSite::start().await?;
    let truth = site.truth();
    println!("seed {}", truth.seed);
    let mut classes: Vec<(&str, usize)> = Vec::new();
    for variant in &truth.variants {
        match classes
            .iter_mut()
            .find(|(class, _)| *class == variant.class)
        {
            Some((_, count)) => *count += 1,
            None => classes.push((variant.class, 1)),
        }
    }
    for (class, count) in classes {
        println!("variants {class} {count}");
    }
    println!("distinct {}", truth.distinct.len());
    println!("counterexamples {}", truth.counterexamples.len());
    println!("Serving; press Ctrl-C to stop.");
    tokio::signal::ctrl_c().await?;
    let requests = site.requests();
    let fetched: usize = truth
        .variants
        .iter()
        .map(|v| requests.get(&v.url).copied().unwrap_or(0))
        .sum();
    println!("variant requests {fetched}");
    Ok(())
}
