//! Serves the hostile hosts of issue 15 until Ctrl-C or stdin closes, for
//! `benches/hostile/run`: prints one seed URL per line, then `ready`.

use dedupcrawl_testsite::hostile_site::HostileSite;
use tokio::io::AsyncReadExt;

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let site = HostileSite::start().await?;
    for seed in site.seeds() {
        println!("{seed}");
    }
    println!("ready");
    let mut stdin = tokio::io::stdin();
    let mut sink = Vec::new();
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        _ = stdin.read_to_end(&mut sink) => {}
    }
    Ok(())
}
