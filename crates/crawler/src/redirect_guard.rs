//! Which redirect targets are refused before they reach the frontier: schemes other than
//! http(s) (`file:`, `ftp:`, `data:` …), and, unless `crawl.allow_private_redirects`, a
//! redirect from a public host into a loopback, private, link-local or unspecified address
//! (server-side request forgery: a public page must not steer the crawler into the network it
//! runs in).
//!
//! An address is judged by what is known without a DNS query: an IP literal, `localhost`
//! (and `*.localhost`), or a name of `fetch.resolve`. A public name whose DNS answer is a
//! private address is not caught here (README, Known problems).

use std::collections::BTreeMap;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use dedupcrawl_fetch::FetchedResponse;
use url::{Host, Url};

use crate::config::CrawlConfig;

/// Longest target quoted in a crawl-log note (a `data:` URL can be megabytes).
const QUOTED_TARGET: usize = 200;

/// What the guard needs from the configuration.
pub(crate) struct RedirectGuard<'a> {
    /// `crawl.allow_private_redirects`.
    pub(crate) allow_private: bool,
    /// `crawl.public_addresses`: addresses that count as public (tests, staging networks).
    pub(crate) public_addresses: &'a [IpAddr],
    /// `fetch.resolve`.
    pub(crate) resolve: &'a BTreeMap<String, IpAddr>,
}

impl<'a> RedirectGuard<'a> {
    /// The guard of a crawl's configuration.
    pub(crate) fn of(config: &'a CrawlConfig) -> RedirectGuard<'a> {
        RedirectGuard {
            allow_private: config.crawl.allow_private_redirects,
            public_addresses: &config.crawl.public_addresses,
            resolve: &config.fetch.resolve,
        }
    }

    /// [`refusal`](Self::refusal) of a redirect `response` to `target`.
    pub(crate) fn refusal_of(&self, response: &FetchedResponse, target: &Url) -> Option<String> {
        let source_address = response.remote_addr.map(|address| address.ip());
        self.refusal(&response.url, source_address, target)
    }

    /// Why `target` must not be followed from `source` (answered from `source_address`), as
    /// a crawl-log note; `None` when it may go to the frontier.
    pub(crate) fn refusal(
        &self,
        source: &Url,
        source_address: Option<IpAddr>,
        target: &Url,
    ) -> Option<String> {
        if !matches!(target.scheme(), "http" | "https") {
            return Some(format!(
                "redirect to {} refused: the `{}:` scheme is not fetched (http and https only)",
                quoted(target),
                target.scheme()
            ));
        }
        if self.allow_private {
            return None;
        }
        let source_address = source_address.or_else(|| self.known_address(source))?;
        if self.is_private(source_address) {
            return None;
        }
        let target_address = self.known_address(target)?;
        let range = private_range(target_address)?;
        if self.public_addresses.contains(&target_address) {
            return None;
        }
        Some(format!(
            "redirect to {} refused: a public host ({source_address}) may not redirect into a \
             {range} address ({target_address}); crawl.allow_private_redirects = true allows it",
            quoted(target)
        ))
    }

    fn is_private(&self, address: IpAddr) -> bool {
        private_range(address).is_some() && !self.public_addresses.contains(&address)
    }

    /// The address of the URL's host when it is known without DNS.
    fn known_address(&self, url: &Url) -> Option<IpAddr> {
        match url.host()? {
            Host::Ipv4(ip) => Some(IpAddr::V4(ip)),
            Host::Ipv6(ip) => Some(IpAddr::V6(ip)),
            Host::Domain(name) => {
                let name = name.trim_end_matches('.').to_ascii_lowercase();
                if name == "localhost" || name.ends_with(".localhost") {
                    Some(IpAddr::V4(Ipv4Addr::LOCALHOST))
                } else {
                    self.resolve.get(&name).copied()
                }
            }
        }
    }
}

/// The non-public range `address` is in, named for the crawl log.
pub(crate) fn private_range(address: IpAddr) -> Option<&'static str> {
    match address {
        IpAddr::V4(ip) => v4_range(ip),
        IpAddr::V6(ip) => match ip.to_ipv4_mapped() {
            Some(v4) => v4_range(v4),
            None => v6_range(ip),
        },
    }
}

fn v4_range(ip: Ipv4Addr) -> Option<&'static str> {
    if ip.is_loopback() {
        Some("loopback")
    } else if ip.is_private() {
        Some("private")
    } else if ip.is_link_local() {
        Some("link-local")
    } else if ip.is_unspecified() || ip.octets()[0] == 0 {
        Some("unspecified")
    } else if ip.octets()[0] == 100 && (ip.octets()[1] & 0xc0) == 64 {
        Some("shared (carrier-grade NAT)")
    } else {
        None
    }
}

fn v6_range(ip: Ipv6Addr) -> Option<&'static str> {
    if ip.is_loopback() {
        Some("loopback")
    } else if ip.is_unique_local() {
        Some("private")
    } else if ip.is_unicast_link_local() {
        Some("link-local")
    } else if ip.is_unspecified() {
        Some("unspecified")
    } else {
        None
    }
}

fn quoted(target: &Url) -> String {
    let text = target.as_str();
    match text.char_indices().nth(QUOTED_TARGET) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn guard<'a>(public: &'a [IpAddr], resolve: &'a BTreeMap<String, IpAddr>) -> RedirectGuard<'a> {
        RedirectGuard {
            allow_private: false,
            public_addresses: public,
            resolve,
        }
    }

    fn url(text: &str) -> Url {
        Url::parse(text).expect("test URL")
    }

    #[test]
    fn ranges() {
        for (text, range) in [
            ("127.0.0.1", Some("loopback")),
            ("10.1.2.3", Some("private")),
            ("172.16.0.1", Some("private")),
            ("192.168.1.1", Some("private")),
            ("169.254.169.254", Some("link-local")),
            ("0.0.0.0", Some("unspecified")),
            ("100.64.0.1", Some("shared (carrier-grade NAT)")),
            ("::1", Some("loopback")),
            ("fd00::1", Some("private")),
            ("fe80::1", Some("link-local")),
            ("::ffff:127.0.0.1", Some("loopback")),
            ("93.184.215.14", None),
            ("2606:2800:21f:cb07:6820:80da:af6b:8b2c", None),
        ] {
            let ip: IpAddr = text.parse().expect("address");
            assert_eq!(private_range(ip), range, "{text}");
        }
    }

    #[test]
    fn public_to_private_is_refused_private_to_private_is_not() {
        let resolve =
            BTreeMap::from([("intranet.example".to_string(), "10.0.0.5".parse().unwrap())]);
        let g = guard(&[], &resolve);
        let public = Some("93.184.215.14".parse().unwrap());
        let source = url("http://example.org/");
        for target in [
            "http://127.0.0.1:8080/admin",
            "http://localhost/",
            "http://[::1]/",
            "http://169.254.169.254/latest/meta-data/",
            "http://intranet.example/",
        ] {
            let note = g.refusal(&source, public, &url(target));
            assert!(note.is_some_and(|n| n.contains("refused")), "{target}");
        }
        assert_eq!(
            g.refusal(&source, public, &url("http://example.com/")),
            None
        );
        assert_eq!(
            g.refusal(
                &url("http://127.0.0.1/"),
                None,
                &url("http://127.0.0.1:81/")
            ),
            None
        );
    }

    #[test]
    fn other_schemes_are_refused_even_when_private_redirects_are_allowed() {
        let resolve = BTreeMap::new();
        let mut g = guard(&[], &resolve);
        g.allow_private = true;
        let source = url("http://127.0.0.1/");
        for target in [
            "file:///etc/passwd",
            "ftp://example.org/x",
            "data:text/html,hi",
        ] {
            let note = g.refusal(&source, None, &url(target)).expect("refused");
            assert!(note.contains("scheme is not fetched"), "{note}");
        }
        assert_eq!(g.refusal(&source, None, &url("http://127.0.0.1:81/")), None);
    }

    #[test]
    fn public_addresses_count_as_public() {
        let resolve = BTreeMap::new();
        let public = ["127.0.0.2".parse().unwrap()];
        let g = guard(&public, &resolve);
        let from = Some(public[0]);
        assert!(
            g.refusal(&url("http://127.0.0.2/"), from, &url("http://127.0.0.1/"))
                .is_some()
        );
        assert_eq!(
            g.refusal(
                &url("http://127.0.0.2/"),
                from,
                &url("http://127.0.0.2:81/")
            ),
            None
        );
    }
}
