//! What a page says, measured without dedupcrawl's code: the text blocks of a region of the
//! served HTML, identifier-aware word tokens and exact word-5-shingle Jaccard / containment.
//! The fixtures check their ground truth with it (copies really alike, distinct pages really
//! different), and the crawler tests check the served pages with it.
//!
//! ```
//! use dedupcrawl_testsite::similarity::{blocks_between, jaccard, shingles, tokens};
//!
//! let html = "<main><h1>The u128 type</h1><p>u128 holds big numbers.</p></main>";
//! let blocks = blocks_between(html, "<main", "</main>").expect("a main element");
//! assert_eq!(blocks, ["The u128 type", "u128 holds big numbers."]);
//! let a = shingles(&tokens(&blocks.join(" ")));
//! assert_eq!(jaccard(&a, &a), 1.0);
//! ```

use std::collections::{HashMap, HashSet};
use std::hash::{DefaultHasher, Hash, Hasher};

/// The text blocks between the first `start` and the following `end` of `html` (`None` when
/// either is missing): any tag but an inline one ends a block; entities become spaces (they
/// are punctuation here).
pub fn blocks_between(html: &str, start: &str, end: &str) -> Option<Vec<String>> {
    let from = html.find(start)?;
    let to = html[from..].find(end)? + from;
    let mut blocks = Vec::new();
    let mut current = String::new();
    let mut rest = &html[from..to];
    while let Some(lt) = rest.find('<') {
        current.push_str(&rest[..lt]);
        let gt = rest[lt..].find('>').map_or(rest.len() - 1, |gt| gt + lt);
        let name: String = rest[lt + 1..gt]
            .trim_start_matches('/')
            .chars()
            .take_while(char::is_ascii_alphanumeric)
            .collect();
        if !matches!(
            name.as_str(),
            "a" | "code" | "em" | "strong" | "span" | "b" | "i"
        ) {
            push_block(&mut blocks, &mut current);
        }
        rest = &rest[gt + 1..];
    }
    current.push_str(rest);
    push_block(&mut blocks, &mut current);
    Some(blocks)
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

/// The shingles of a page's blocks read as one text.
pub fn text_shingles(blocks: &[String]) -> HashSet<u64> {
    shingles(&tokens(&blocks.join(" ")))
}

pub fn jaccard(a: &HashSet<u64>, b: &HashSet<u64>) -> f64 {
    let shared = a.intersection(b).count();
    shared as f64 / (a.len() + b.len() - shared).max(1) as f64
}

/// Share of `part` inside `whole`.
pub fn containment(part: &HashSet<u64>, whole: &HashSet<u64>) -> f64 {
    part.intersection(whole).count() as f64 / part.len().max(1) as f64
}

/// `http://host:port` of an absolute URL (the URL itself when it does not parse).
fn origin(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(u) => u[..url::Position::BeforePath].to_string(),
        Err(_) => url.to_string(),
    }
}

/// The blocks of each page that are not its host's template: blocks found on at least half
/// of the host's pages are template. `pages` is URL -> blocks.
pub fn own_blocks(pages: &HashMap<String, Vec<String>>) -> HashMap<String, Vec<String>> {
    let mut pages_per_host: HashMap<String, usize> = HashMap::new();
    let mut block_pages: HashMap<(String, &str), usize> = HashMap::new();
    for (url, blocks) in pages {
        *pages_per_host.entry(origin(url)).or_default() += 1;
        let unique: HashSet<&str> = blocks.iter().map(String::as_str).collect();
        for b in unique {
            *block_pages.entry((origin(url), b)).or_default() += 1;
        }
    }
    pages
        .iter()
        .map(|(url, blocks)| {
            let h = origin(url);
            let own: Vec<String> = blocks
                .iter()
                .filter(|b| 2 * block_pages[&(h.clone(), b.as_str())] < pages_per_host[&h])
                .cloned()
                .collect();
            (url.clone(), own)
        })
        .collect()
}

/// The shingles of each page's text minus its host's template ([`own_blocks`]).
pub fn own_text_shingles(pages: &HashMap<String, Vec<String>>) -> HashMap<String, HashSet<u64>> {
    own_blocks(pages)
        .into_iter()
        .map(|(url, own)| (url, text_shingles(&own)))
        .collect()
}
