//! Real prose for the varied hosts: the human-checked main text of the benchmark data sets in
//! `../shared/data` (WCXB dev and the ScrapingHub article benchmark; see its README), read at
//! run time and never copied into the repository. Each source page becomes a [`Document`]:
//! a title and its English paragraphs of 12 to 160 words. A paragraph that shares more than
//! a tenth of its word 5-shingles with an earlier one is left out, so two paragraphs drawn
//! for two pages never make those pages alike by accident.

use std::collections::HashSet;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::similarity::{shingles, tokens};
use crate::text::Rng;

/// The data sets' directory: `$DEDUP_SHARED_DATA`, else `../shared/data` beside the
/// repository (as `dedupcrawl-bench` finds it).
pub fn shared_data_root() -> PathBuf {
    std::env::var_os("DEDUP_SHARED_DATA").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data"),
        PathBuf::from,
    )
}

/// One source page's text.
pub(crate) struct Document {
    pub(crate) title: String,
    pub(crate) paragraphs: Vec<String>,
}

impl Document {
    pub(crate) fn words(&self) -> usize {
        self.paragraphs.iter().map(|p| word_count(p)).sum()
    }
}

pub(crate) fn word_count(s: &str) -> usize {
    s.split_whitespace().count()
}

/// Every usable document, in a fixed order (file names sorted).
pub(crate) struct Corpus {
    pub(crate) documents: Vec<Document>,
}

/// The corpus, read once per process.
pub(crate) fn corpus() -> io::Result<&'static Corpus> {
    static CORPUS: OnceLock<Result<Corpus, String>> = OnceLock::new();
    CORPUS
        .get_or_init(|| load(&shared_data_root()).map_err(|e| e.to_string()))
        .as_ref()
        .map_err(|e| io::Error::other(e.clone()))
}

fn load(root: &Path) -> io::Result<Corpus> {
    let context = |what: &str, e: &dyn std::fmt::Display| {
        io::Error::other(format!(
            "{what} under {}: {e} (the varied fixture reads the benchmark data sets there; \
             set DEDUP_SHARED_DATA to the directory that holds wcxb-dev/ and \
             article-extraction-benchmark/)",
            root.display()
        ))
    };
    let mut raw: Vec<(String, String)> = Vec::new();
    let truth_dir = root.join("wcxb-dev/ground-truth");
    let mut names: Vec<PathBuf> = std::fs::read_dir(&truth_dir)
        .map_err(|e| context("cannot list wcxb-dev/ground-truth", &e))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    names.sort();
    for path in names {
        let mut text = String::new();
        std::fs::File::open(&path)
            .and_then(|mut f| f.read_to_string(&mut text))
            .map_err(|e| context(&format!("cannot read {}", path.display()), &e))?;
        let page: serde_json::Value = serde_json::from_str(&text)
            .map_err(|e| context(&format!("{} is not JSON", path.display()), &e))?;
        let truth = &page["ground_truth"];
        if let Some(body) = truth["main_content"].as_str() {
            let title = truth["title"].as_str().unwrap_or("").to_string();
            raw.push((title, body.to_string()));
        }
    }
    let scrapinghub = root.join("article-extraction-benchmark/ground-truth.json");
    let text = std::fs::read_to_string(&scrapinghub).map_err(|e| {
        context(
            "cannot read article-extraction-benchmark/ground-truth.json",
            &e,
        )
    })?;
    let pages: serde_json::Map<String, serde_json::Value> = serde_json::from_str(&text)
        .map_err(|e| context("article-extraction-benchmark/ground-truth.json", &e))?;
    let mut ids: Vec<&String> = pages.keys().collect();
    ids.sort();
    for id in ids {
        let page = &pages[id];
        if let Some(body) = page["articleBody"].as_str() {
            raw.push((
                slug_title(page["url"].as_str().unwrap_or("")),
                body.to_string(),
            ));
        }
    }

    let mut seen = HashSet::new();
    let mut documents = Vec::new();
    for (title, body) in raw {
        let mut paragraphs = Vec::new();
        for line in body.lines() {
            let p = line.split_whitespace().collect::<Vec<_>>().join(" ");
            if !usable(&p) {
                continue;
            }
            let own = shingles(&tokens(&p));
            let repeated = own.iter().filter(|s| seen.contains(*s)).count();
            if repeated * 10 > own.len() {
                continue;
            }
            seen.extend(own);
            paragraphs.push(p);
        }
        let title = title.split_whitespace().collect::<Vec<_>>().join(" ");
        if !paragraphs.is_empty() && (2..=16).contains(&word_count(&title)) && english(&title) {
            documents.push(Document { title, paragraphs });
        }
    }
    if documents.len() < 500 {
        return Err(context(
            "too few usable documents",
            &format!("{} found", documents.len()),
        ));
    }
    Ok(Corpus { documents })
}

/// A title from an article URL's slug: `/2019/05/why-cities-plant-trees.html` -> "Why
/// cities plant trees".
fn slug_title(url: &str) -> String {
    let path = url.split(['?', '#']).next().unwrap_or("");
    let slug = path
        .split('/')
        .rev()
        .find(|s| s.chars().filter(char::is_ascii_alphabetic).count() > 12)
        .unwrap_or("");
    let slug = slug.split('.').next().unwrap_or("");
    let words: Vec<&str> = slug
        .split(['-', '_', '+'])
        .filter(|w| !w.is_empty() && w.chars().all(|c| c.is_ascii_alphabetic()))
        .collect();
    let mut title = words.join(" ");
    if let Some(first) = title.get(..1) {
        title = first.to_uppercase() + &title[1..];
    }
    title
}

/// A paragraph worth drawing: English prose of 12-160 words, no URLs, mostly letters.
fn usable(p: &str) -> bool {
    let words = word_count(p);
    if !(12..=160).contains(&words) || p.contains("http") || p.contains("www.") {
        return false;
    }
    let letters = p.chars().filter(|c| c.is_alphabetic()).count();
    let visible = p.chars().filter(|c| !c.is_whitespace()).count();
    letters * 10 >= visible * 8 && english(p)
}

/// At least an eighth of the words are common English function words.
fn english(text: &str) -> bool {
    const COMMON: &[&str] = &[
        "the", "and", "of", "to", "a", "in", "is", "that", "for", "it", "with", "as", "on", "be",
        "this", "are", "by", "or", "at", "from", "you", "your", "we", "our", "an", "was", "how",
        "what", "why", "can", "will", "not", "has", "have", "its", "their", "new",
    ];
    let words = tokens(text);
    let common = words
        .iter()
        .filter(|w| COMMON.contains(&w.as_str()))
        .count();
    !words.is_empty() && common * 8 >= words.len()
}

/// Draws text for one site: every document, title and paragraph at most once, in an order
/// fixed by the seed.
pub(crate) struct Draw {
    corpus: &'static Corpus,
    order: Vec<usize>,
    next_document: usize,
    /// Paragraphs of documents opened for loose paragraphs, not handed out yet.
    loose: Vec<String>,
    rng: Rng,
}

impl Draw {
    pub(crate) fn new(corpus: &'static Corpus, seed: u64) -> Draw {
        let mut rng = Rng::new(seed);
        let mut order: Vec<usize> = (0..corpus.documents.len()).collect();
        shuffle(&mut order, &mut rng);
        Draw {
            corpus,
            order,
            next_document: 0,
            loose: Vec::new(),
            rng,
        }
    }

    pub(crate) fn rng(&mut self) -> &mut Rng {
        &mut self.rng
    }

    fn next(&mut self) -> &'static Document {
        let corpus = self.corpus;
        let i = self.order[self.next_document % self.order.len()];
        self.next_document += 1;
        &corpus.documents[i]
    }

    /// A whole document of at least `paragraphs` paragraphs and `words` words (its title
    /// and paragraphs, up to `max_words` words).
    pub(crate) fn document(
        &mut self,
        paragraphs: usize,
        words: usize,
        max_words: usize,
    ) -> Document {
        loop {
            let d = self.next();
            if d.paragraphs.len() >= paragraphs && d.words() >= words {
                let mut kept = Vec::new();
                let mut count = 0;
                for p in &d.paragraphs {
                    if count >= words && kept.len() >= paragraphs {
                        break;
                    }
                    if count + word_count(p) > max_words && kept.len() >= paragraphs {
                        break;
                    }
                    count += word_count(p);
                    kept.push(p.clone());
                }
                return Document {
                    title: d.title.clone(),
                    paragraphs: kept,
                };
            }
        }
    }

    /// A title nobody else on the site has (a document's, the document left unused).
    pub(crate) fn title(&mut self) -> String {
        self.next().title.clone()
    }

    /// A word for a brand name: the first word of a fresh title (`fallback` for an empty one).
    pub(crate) fn brand_word(&mut self, fallback: &str) -> String {
        let title = self.title();
        title
            .split_whitespace()
            .next()
            .unwrap_or(fallback)
            .to_string()
    }

    /// One paragraph of `min..=max` words.
    pub(crate) fn paragraph(&mut self, min: usize, max: usize) -> String {
        loop {
            if let Some(i) = self
                .loose
                .iter()
                .position(|p| (min..=max).contains(&word_count(p)))
            {
                return self.loose.swap_remove(i);
            }
            if self.loose.len() > 40 {
                self.loose.clear();
            }
            let d = self.next();
            self.loose.extend(d.paragraphs.iter().cloned());
        }
    }

    /// Paragraphs of 20-160 words adding up to at least `words` words.
    pub(crate) fn prose(&mut self, words: usize) -> Vec<String> {
        let mut out = Vec::new();
        let mut count = 0;
        while count < words {
            let p = self.paragraph(20, 160);
            count += word_count(&p);
            out.push(p);
        }
        out
    }

    /// `min..=max` words of one paragraph, cut after a sentence when one ends in range.
    pub(crate) fn snippet(&mut self, min: usize, max: usize) -> String {
        let p = self.paragraph(min, 160);
        cut(&p, min, max)
    }
}

/// The first `min..=max` words of `text`, ending at a sentence end when one falls in range.
pub(crate) fn cut(text: &str, min: usize, max: usize) -> String {
    let words: Vec<&str> = text.split_whitespace().collect();
    let mut end = max.min(words.len());
    if let Some(k) = (min..=end)
        .rev()
        .find(|&k| words[k - 1].ends_with(['.', '!', '?']))
    {
        end = k;
    }
    let mut out = words[..end].join(" ");
    if !out.ends_with(['.', '!', '?', '"']) {
        out.push('.');
    }
    out
}

pub(crate) fn shuffle<T>(items: &mut [T], rng: &mut Rng) {
    for i in (1..items.len()).rev() {
        let j = (rng.next_u64() % (i as u64 + 1)) as usize;
        items.swap(i, j);
    }
}
