//! The language of each block of a long page that mixes languages.
//!
//! A page's language is decided from the first 2 KB of its main content
//! ([`crate::decide_language`]). A one-page edition of a partly translated book (Rust by
//! Example's `es/print.html`: a Spanish introduction, then chapters in Spanish and chapters
//! left in English) is then stemmed as Spanish throughout, and its English chapters share no
//! block key and almost no shingle with the English chapter pages they hold: 311 of them
//! were not found inside it. On a long main content (at least [`LONG_TEXT_BYTES`]) two more
//! samples, from its middle and its end, are decided too; when one of them differs from the
//! page's language, every block gets its own (its stop words when it has enough words and
//! they fit one language better, whatlang when they cannot tell, the block before it's when
//! it is too short to say), so the same chapter is stemmed alike on both pages. One language
//! throughout, the common case, costs the two samples.
//!
//! ```
//! use dedupcrawl_textprep::{Language, block_languages};
//! let spanish = "El libro explica cómo se escribe un programa y por qué las reglas de la \
//!     lengua son así, con ejemplos que se pueden ejecutar en el navegador para ver lo que \
//!     pasa cuando se cambia el código de una de las partes.";
//! let english = "The book explains how a program is written and why the rules of the \
//!     language are what they are, with examples that can be run in the browser to see what \
//!     happens when the code of one of the parts is changed.";
//! let mut blocks: Vec<&str> = vec![spanish; 200];
//! blocks.extend(vec![english; 200]);
//! let languages = block_languages(&blocks, Language::Spanish).expect("mixed");
//! assert_eq!(languages[0], Language::Spanish);
//! assert_eq!(languages[399], Language::English);
//! // One language throughout: no per-block languages.
//! assert_eq!(block_languages(&vec![english; 400], Language::English), None);
//! ```

use crate::language::{DETECTION_SAMPLE_BYTES, FIT_MIN_WORDS, Language, StopWordCounts};

/// Main content from which a page's middle and end are sampled for another language: 16
/// detection samples. Shorter pages keep one language.
pub const LONG_TEXT_BYTES: usize = 16 * DETECTION_SAMPLE_BYTES;

/// The language of each of `blocks` (a page's main-content blocks, in page order) when the
/// page mixes languages; `None` when its middle and end are in `page_language` too (or it is
/// shorter than [`LONG_TEXT_BYTES`]).
pub fn block_languages(blocks: &[&str], page_language: Language) -> Option<Vec<Language>> {
    let total: usize = blocks.iter().map(|text| text.len() + 1).sum();
    if total < LONG_TEXT_BYTES {
        return None;
    }
    let mixed = [total / 2, total - total / 8]
        .into_iter()
        .any(|from| sample_language(blocks, from, page_language).is_some());
    if !mixed {
        return None;
    }
    let mut current = page_language;
    Some(
        blocks
            .iter()
            .map(|text| {
                if let Some(language) = prose_language(text, current, page_language) {
                    current = language;
                }
                current
            })
            .collect(),
    )
}

/// The language of the blocks from byte offset `from` on, over one detection sample, when
/// it is not `page_language`: the sample's stop words do not fit that, and their clear
/// leader or whatlang names another.
fn sample_language(blocks: &[&str], from: usize, page_language: Language) -> Option<Language> {
    let mut offset = 0;
    let mut sample = String::new();
    for text in blocks {
        offset += text.len() + 1;
        if offset <= from {
            continue;
        }
        sample.push_str(text);
        sample.push(' ');
        if sample.len() > DETECTION_SAMPLE_BYTES {
            break;
        }
    }
    let counts = StopWordCounts::of(&sample);
    if counts.fit(page_language) {
        return None;
    }
    detect(&sample, &counts).filter(|&language| language != page_language)
}

/// A block's own language, when it has enough words to say: the running language or the
/// page's while its stop words fit them, else theirs or whatlang's.
fn prose_language(text: &str, current: Language, page_language: Language) -> Option<Language> {
    let counts = StopWordCounts::of(text);
    if counts.words < FIT_MIN_WORDS || counts.fit(current) {
        return None;
    }
    if counts.fit(page_language) {
        return Some(page_language);
    }
    detect(text, &counts)
}

fn detect(text: &str, counts: &StopWordCounts) -> Option<Language> {
    counts.clear_leader().or_else(|| {
        whatlang::detect(text)
            .filter(whatlang::Info::is_reliable)
            .and_then(|info| Language::from_whatlang(info.lang()))
    })
}
