//! Credentials in seed URLs (`http://user:pw@host/`): never stored or archived. Canonical URLs
//! carry no user name or password; the seeds' credentials are kept in memory for the run and
//! sent as HTTP Basic authentication to the seed's origin (scheme, host, port), and the
//! `Authorization` and `Cookie` values of WARC request records are redacted unless
//! `archive.keep_credential_headers` keeps them.

use std::collections::HashMap;

use dedupcrawl_fetch::BasicCredentials;
use percent_encoding::percent_decode_str;
use url::Url;

use crate::config::CrawlConfig;

/// What a redacted header value is written as.
pub const REDACTED: &str = "redacted";

/// Request headers whose values are credentials.
const CREDENTIAL_HEADERS: [&str; 2] = ["authorization", "cookie"];

/// The credentials of the seeds of `config` by origin (`http://host:port`); the first seed
/// of an origin with credentials wins.
pub(crate) fn seed_credentials(config: &CrawlConfig) -> HashMap<String, BasicCredentials> {
    let seeds = config
        .crawl
        .seeds
        .iter()
        .chain(config.site.iter().flat_map(|site| site.seeds.iter()));
    let mut credentials = HashMap::new();
    for seed in seeds {
        let Ok(url) = Url::parse(seed.trim()) else {
            continue;
        };
        if url.username().is_empty() && url.password().is_none() {
            continue;
        }
        let decode = |text: &str| percent_decode_str(text).decode_utf8_lossy().into_owned();
        credentials
            .entry(url.origin().ascii_serialization())
            .or_insert_with(|| BasicCredentials {
                user: decode(url.username()),
                password: url.password().map(decode),
            });
    }
    credentials
}

/// `url` without its user name and password (as given when it does not parse).
pub fn without_credentials(url: &str) -> String {
    match Url::parse(url.trim()) {
        Ok(mut parsed) if !parsed.username().is_empty() || parsed.password().is_some() => {
            let _ = parsed.set_username("");
            let _ = parsed.set_password(None);
            parsed.to_string()
        }
        _ => url.to_string(),
    }
}

/// `config` with the user names and passwords taken out of its seeds (what is saved in
/// `OUT/crawl.toml`).
pub fn config_without_credentials(config: &CrawlConfig) -> CrawlConfig {
    let mut clean = config.clone();
    let strip = |seeds: &mut Vec<String>| {
        for seed in seeds.iter_mut() {
            *seed = without_credentials(seed);
        }
    };
    strip(&mut clean.crawl.seeds);
    for site in &mut clean.site {
        strip(&mut site.seeds);
    }
    clean
}

/// Replaces the values of the credential headers (`Authorization`, `Cookie`) with
/// [`REDACTED`].
pub(crate) fn redact_credential_headers(headers: &mut [(String, Vec<u8>)]) {
    for (name, value) in headers.iter_mut() {
        if CREDENTIAL_HEADERS
            .iter()
            .any(|credential| name.eq_ignore_ascii_case(credential))
        {
            *value = REDACTED.as_bytes().to_vec();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_credentials_are_decoded_by_origin_and_taken_out_of_urls() {
        let mut config = CrawlConfig::default();
        config.crawl.seeds = vec![
            "http://us%40er:p%3Aw@127.0.0.1:8080/a".into(),
            "https://plain.example/".into(),
        ];
        let credentials = seed_credentials(&config);
        assert_eq!(credentials.len(), 1);
        let found = &credentials["http://127.0.0.1:8080"];
        assert_eq!(found.user, "us@er");
        assert_eq!(found.password.as_deref(), Some("p:w"));
        assert!(!format!("{found:?}").contains("p:w"));
        let clean = config_without_credentials(&config);
        assert_eq!(clean.crawl.seeds[0], "http://127.0.0.1:8080/a");
        assert_eq!(clean.crawl.seeds[1], "https://plain.example/");
    }

    #[test]
    fn credential_headers_are_redacted_and_the_others_kept() {
        let mut headers = vec![
            ("Authorization".to_string(), b"Basic dXNlcjpwdw==".to_vec()),
            ("cookie".to_string(), b"session=1".to_vec()),
            ("user-agent".to_string(), b"dedupcrawl".to_vec()),
        ];
        redact_credential_headers(&mut headers);
        assert_eq!(headers[0].1, b"redacted");
        assert_eq!(headers[1].1, b"redacted");
        assert_eq!(headers[2].1, b"dedupcrawl");
    }
}
