//! Serves the dedupcrawl test site until Ctrl-C, for manual crawls.
//!
//! `cargo run -p dedupcrawl-testsite [-- --json]`: prints the host URLs (and with `--json`
//! the full ground truth as JSON).

use dedupcrawl_testsite::TestSite;

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let json = std::env::args().any(|a| a == "--json");
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
