//! Serves the hostile hosts of issue 15 until Ctrl-C (or SIGTERM's default: exit), for
//! `benches/hostile/run`: prints one seed URL per line, then `ready`.

use dedupcrawl_testsite::hostile_site::HostileSite;

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let site = HostileSite::start().await?;
    for seed in site.seeds() {
        println!("{seed}");
    }
    println!("ready");
    tokio::signal::ctrl_c().await
}
