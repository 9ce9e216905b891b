//! What a page says, measured without dedupcrawl's code: a raw HTTP GET and the text blocks
//! of `<main>`; tokens, shingles, Jaccard and containment are the fixture crate's
//! ([`dedupcrawl_testsite::similarity`]).

use dedupcrawl_testsite::similarity::blocks_between;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// The body of `GET url` (HTTP/1.1, `Connection: close`, non-chunked answers only).
pub async fn http_get(url: &str) -> String {
    let parsed = url::Url::parse(url).expect("absolute URL");
    let authority = format!(
        "{}:{}",
        parsed.host_str().expect("host"),
        parsed.port().expect("port")
    );
    let mut stream = TcpStream::connect(&authority).await.expect("connect");
    let request = format!(
        "GET {}{} HTTP/1.1\r\nHost: {authority}\r\nConnection: close\r\n\r\n",
        parsed.path(),
        parsed.query().map(|q| format!("?{q}")).unwrap_or_default()
    );
    stream.write_all(request.as_bytes()).await.expect("send");
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).await.expect("read");
    let raw = String::from_utf8(raw).expect("UTF-8 answer");
    let (head, body) = raw.split_once("\r\n\r\n").expect("HTTP answer");
    assert!(head.starts_with("HTTP/1.1 200"), "{url}: {head}");
    body.to_string()
}

/// The text blocks inside `<main>`.
pub fn main_blocks(html: &str) -> Vec<String> {
    blocks_between(html, "<main", "</main>").expect("a <main> and a </main>")
}
