//! Name resolution overrides: `resolve` sends a name to a fixed address without DNS, and
//! `resolve_only` makes every other name fail as "name does not resolve" with no query sent.

use std::net::{IpAddr, Ipv4Addr};

use dedupcrawl_fetch::{FetchError, FetchRequest};

use crate::common::{fetcher_with, serve_raw};

const OK: &[u8] = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok";
const LOCAL: IpAddr = IpAddr::V4(Ipv4Addr::LOCALHOST);

#[tokio::test]
async fn a_name_in_the_table_goes_to_its_address_with_or_without_resolve_only() {
    let addr = serve_raw(OK).await;
    for only in [false, true] {
        let fetcher = fetcher_with(|config| {
            config.resolve.insert("Site.Test".into(), LOCAL);
            config.resolve_only = only;
        });
        let url = format!("http://site.test:{}/", addr.port());
        let response = fetcher
            .fetch(FetchRequest::parse(&url).expect("url"))
            .await
            .unwrap_or_else(|e| panic!("resolve_only = {only}: {e}"));
        assert_eq!(&response.body[..], b"ok");
        assert_eq!(response.remote_addr, Some(addr));
    }
}

#[tokio::test]
async fn with_resolve_only_another_name_does_not_resolve() {
    let addr = serve_raw(OK).await;
    let fetcher = fetcher_with(|config| {
        config.resolve.insert("site.test".into(), LOCAL);
        config.resolve_only = true;
    });
    // An IP literal needs no resolution.
    let literal = format!("http://{addr}/");
    assert!(
        fetcher
            .fetch(FetchRequest::parse(&literal).expect("url"))
            .await
            .is_ok()
    );

    let url = format!("http://nowhere.invalid:{}/", addr.port());
    let error = fetcher
        .fetch(FetchRequest::parse(&url).expect("url"))
        .await
        .expect_err("not in the table");
    assert!(matches!(error, FetchError::Connect { .. }), "{error:?}");
    let reason = error.host_failure().expect("a host failure");
    assert_eq!(
        reason,
        "name does not resolve (nowhere.invalid is not in the resolve table; resolve_only sends \
         no DNS query)"
    );
}
