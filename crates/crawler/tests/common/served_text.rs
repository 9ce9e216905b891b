//! What a page says, measured without dedupcrawl's code: a raw HTTP GET, the text blocks of
//! `<main>`, identifier-aware word tokens and exact word-5-shingle Jaccard / containment.

use std::collections::{HashMap, HashSet};
use std::hash::{DefaultHasher, Hash, Hasher};

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
        "GET {} HTTP/1.1\r\nHost: {authority}\r\nConnection: close\r\n\r\n",
        parsed.path()
    );
    stream.write_all(request.as_bytes()).await.expect("send");
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).await.expect("read");
    let raw = String::from_utf8(raw).expect("UTF-8 answer");
    let (head, body) = raw.split_once("\r\n\r\n").expect("HTTP answer");
    assert!(head.starts_with("HTTP/1.1 200"), "{url}: {head}");
    body.to_string()
}

/// The text blocks inside `<main>`: any tag but an inline one ends a block; entities become
/// spaces (they are punctuation here).
pub fn main_blocks(html: &str) -> Vec<String> {
    let start = html.find("<main").expect("a <main>");
    let end = html.find("</main>").expect("a </main>");
    let mut blocks = Vec::new();
    let mut current = String::new();
    let mut rest = &html[start..end];
    while let Some(lt) = rest.find('<') {
        current.push_str(&rest[..lt]);
        let gt = rest[lt..].find('>').expect("closed tag") + lt;
        let name: String = rest[lt + 1..gt]
            .trim_start_matches('/')
            .chars()
            .take_while(char::is_ascii_alphanumeric)
            .collect();
        if !matches!(name.as_str(), "a" | "code" | "em" | "strong" | "span") {
            push_block(&mut blocks, &mut current);
        }
        rest = &rest[gt + 1..];
    }
    current.push_str(rest);
    push_block(&mut blocks, &mut current);
    blocks
}

fn push_block(blocks: &mut Vec<String>, current: &mut String) {
    let mut text = String::new();
    let mut rest = current.as_str();
    while let Some(amp) = rest.find('&') {
        text.push_str(&rest[..amp]);
        match rest[amp..].find(';') {
            Some(semi) if semi < 10 => {
                text.push(' ');
                rest = &rest[amp + semi + 1..];
            }
            _ => {
                text.push('&');
                rest = &rest[amp + 1..];
            }
        }
    }
    text.push_str(rest);
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if !text.is_empty() {
        blocks.push(text);
    }
    current.clear();
}

/// Lowercased runs of letters, digits and `_` that contain a letter: `u128`, `x86_64` and
/// `blkcnt_t` stay whole, pure numbers (counters, prices, dates) are dropped.
pub fn tokens(text: &str) -> Vec<String> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| w.chars().any(char::is_alphabetic))
        .map(str::to_lowercase)
        .collect()
}

/// Hashes of the word 5-shingles (the whole text when shorter).
pub fn shingles(tokens: &[String]) -> HashSet<u64> {
    let hash = |words: &[String]| {
        let mut h = DefaultHasher::new();
        words.hash(&mut h);
        h.finish()
    };
    if tokens.len() < 5 {
        return std::iter::once(hash(tokens)).collect();
    }
    tokens.windows(5).map(hash).collect()
}

pub fn jaccard(a: &HashSet<u64>, b: &HashSet<u64>) -> f64 {
    let shared = a.intersection(b).count();
    shared as f64 / (a.len() + b.len() - shared).max(1) as f64
}

/// Share of `part` inside `whole`.
pub fn containment(part: &HashSet<u64>, whole: &HashSet<u64>) -> f64 {
    part.intersection(whole).count() as f64 / part.len().max(1) as f64
}

/// The main text of each page minus its host's template: blocks found on at least half of
/// the host's pages. `pages` is URL -> main blocks; returns URL -> shingles.
pub fn own_text_shingles(pages: &HashMap<String, Vec<String>>) -> HashMap<String, HashSet<u64>> {
    let host =
        |url: &str| url::Url::parse(url).expect("URL")[..url::Position::BeforePath].to_string();
    let mut pages_per_host: HashMap<String, usize> = HashMap::new();
    let mut block_pages: HashMap<(String, &str), usize> = HashMap::new();
    for (url, blocks) in pages {
        *pages_per_host.entry(host(url)).or_default() += 1;
        let unique: HashSet<&str> = blocks.iter().map(String::as_str).collect();
        for b in unique {
            *block_pages.entry((host(url), b)).or_default() += 1;
        }
    }
    pages
        .iter()
        .map(|(url, blocks)| {
            let h = host(url);
            let own: Vec<String> = blocks
                .iter()
                .filter(|b| 2 * block_pages[&(h.clone(), b.as_str())] < pages_per_host[&h])
                .flat_map(|b| tokens(b))
                .collect();
            (url.clone(), shingles(&own))
        })
        .collect()
}
