//! No credentials in archives (issue 46): a crawl seeded with `http://user:pw@host/` sends
//! them to the server (HTTP Basic authentication) and writes neither the password nor the
//! `Authorization` value into any file of OUT (WARCs read decompressed, the crawl log, the
//! CDXJ, the state, the report, the saved config), unless
//! `archive.keep_credential_headers` keeps the header.

use std::io::Read as _;
use std::path::Path;

use dedupcrawl_testsite::{TestSite, TestSiteOptions};

use crate::refused_starts::snapshot;
use crate::support;

const USER: &str = "crawluser";
const PASSWORD: &str = "Pa55-secret-word";

/// Every file of OUT as it reads: `.gz` files decompressed.
fn readable_files(out: &Path) -> Vec<(String, Vec<u8>)> {
    snapshot(out)
        .into_iter()
        .map(|(path, bytes)| {
            let bytes = if path.extension().is_some_and(|e| e == "gz") {
                let mut text = Vec::new();
                flate2::read::MultiGzDecoder::new(&bytes[..])
                    .read_to_end(&mut text)
                    .expect("a gzip file");
                text
            } else {
                bytes
            };
            (path.display().to_string(), bytes)
        })
        .collect()
}

fn contains(haystack: &[u8], needle: &str) -> bool {
    haystack
        .windows(needle.len())
        .any(|window| window == needle.as_bytes())
}

fn crawl(site: &TestSite, dir: &Path, config: &str) -> std::path::PathBuf {
    let seed = site
        .main_url()
        .replacen("http://", &format!("http://{USER}:{PASSWORD}@"), 1);
    support::run(
        support::crawl_command(dir, config, "out")
            .args(["--delay", "0", "--max-pages", "6", "--seed"])
            .arg(&seed),
    );
    dir.join("out")
}

#[test]
fn seed_credentials_are_sent_but_nothing_in_out_holds_them() {
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let site = runtime
        .block_on(TestSite::start_with(TestSiteOptions {
            crawl_delay: Some(0.05),
            ..TestSiteOptions::default()
        }))
        .expect("test site");
    let basic = data_encoding::BASE64.encode(format!("{USER}:{PASSWORD}").as_bytes());
    let dir = tempfile::tempdir().expect("tempdir");
    let out = crawl(&site, dir.path(), "[crawl]\nprogress = false\n");

    let pages: Vec<_> = site
        .request_log()
        .into_iter()
        .filter(|request| request.path_and_query == "/")
        .collect();
    assert!(!pages.is_empty(), "the seed was not fetched");
    for request in &pages {
        assert_eq!(
            request.authorization.as_deref(),
            Some(format!("Basic {basic}").as_str())
        );
    }
    let files = readable_files(&out);
    assert!(files.len() > 5, "{files:?}");
    let mut redacted = false;
    for (path, bytes) in &files {
        assert!(!contains(bytes, PASSWORD), "{path} holds the password");
        assert!(
            !contains(bytes, &basic),
            "{path} holds the Authorization value"
        );
        assert!(
            !contains(bytes, &format!("{USER}:")),
            "{path} holds the userinfo"
        );
        redacted |= contains(bytes, "authorization: redacted");
    }
    assert!(
        redacted,
        "no request record with a redacted Authorization header"
    );

    // Kept on request.
    let dir = tempfile::tempdir().expect("tempdir");
    let config = "[crawl]\nprogress = false\n\n[archive]\nkeep_credential_headers = true\n";
    let out = crawl(&site, dir.path(), config);
    let warcs: Vec<_> = readable_files(&out)
        .into_iter()
        .filter(|(path, _)| path.contains("/warc/"))
        .collect();
    assert!(warcs.iter().any(|(_, bytes)| contains(bytes, &basic)));
    assert!(warcs.iter().all(|(_, bytes)| !contains(bytes, PASSWORD)));
}
