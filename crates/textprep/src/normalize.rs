//! Text → normalized tokens: Unicode word segmentation, lowercase, words with at least one
//! letter (identifiers such as `u128`, `x86_64`, `blkcnt_t` stay whole; pure numbers are
//! dropped, kept or masked), stop words out and Snowball (Porter2 for English) stems for
//! alphabetic words. Every step can be switched off.

use std::cell::RefCell;
use std::sync::OnceLock;

use rustc_hash::FxHashMap;
use unicode_segmentation::UnicodeSegmentation;
use xxhash_rust::xxh3::{xxh3_64, xxh3_64_with_seed};

use crate::language::Language;

/// Which normalization steps run. All on by default.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct NormalizeOptions {
    /// Lowercase every word.
    pub lowercase: bool,
    /// What becomes of numbers. A word with a letter is always a token (`u128`, `f32x2`,
    /// `x86_64`, `log2_10`); a pure number (a counter, a date, a price) is not by default.
    pub numbers: NumberPolicy,
    /// Drop the language's stop words (NLTK lists from the `stop-words` crate). Alphabetic
    /// words only: identifiers are never stop words.
    pub remove_stopwords: bool,
    /// Replace words by their Snowball stem (`rust-stemmers`; English is Porter2). Alphabetic
    /// words only: `u128` is not stemmed.
    pub stem: bool,
}

/// What the normalizer does with digits (`[dedup.text.normalize] numbers`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NumberPolicy {
    /// Pure numbers are not tokens; identifiers keep their digits.
    #[default]
    Drop,
    /// Pure numbers are tokens too.
    Keep,
    /// Every digit becomes `0`, in numbers and identifiers (`i16` and `i32` are one token), as
    /// dataset deduplicators such as datatrove do.
    Mask,
}

impl Default for NormalizeOptions {
    fn default() -> Self {
        NormalizeOptions {
            lowercase: true,
            numbers: NumberPolicy::Drop,
            remove_stopwords: true,
            stem: true,
        }
    }
}

impl NormalizeOptions {
    /// Every step off but segmentation: tokens are the words as written.
    pub fn raw() -> Self {
        NormalizeOptions {
            lowercase: false,
            numbers: NumberPolicy::Keep,
            remove_stopwords: false,
            stem: false,
        }
    }

    fn cache_seed(self, language: Language) -> u64 {
        (language as u64) << 8
            | (self.lowercase as u64)
            | (self.numbers as u64) << 4
            | (self.remove_stopwords as u64) << 2
            | (self.stem as u64) << 3
    }
}

/// The 64-bit hash of one normalized token, as used for shingling.
pub fn hash_token(token: &str) -> u64 {
    xxh3_64(token.as_bytes())
}

fn stemmer(language: Language) -> &'static rust_stemmers::Stemmer {
    static TABLES: [OnceLock<rust_stemmers::Stemmer>; Language::ALL.len()] =
        [const { OnceLock::new() }; Language::ALL.len()];
    TABLES[language as usize]
        .get_or_init(|| rust_stemmers::Stemmer::create(language.stemmer_algorithm()))
}

/// Words are looked up in a per-thread cache: vocabularies are Zipfian, so after a few pages
/// almost every word's fate (dropped, or the hash of its stem) is known without stemming.
/// The bound holds within one text too: a page of 500,000 distinct words (a link flood whose
/// anchors are numbers) grew the cache to ~40 MB in one call when it was only checked between
/// texts. 65,536 entries (~2 MB per page thread) hold a site's working vocabulary.
const STEM_CACHE_LIMIT: usize = 65_536;

thread_local! {
    static STEM_CACHE: RefCell<FxHashMap<u64, Option<u64>>> = RefCell::new(FxHashMap::default());
}

/// Turns text into normalized tokens (or their hashes) for one language.
///
/// ```
/// use dedupcrawl_textprep::{Language, NormalizeOptions, Normalizer};
/// let normalizer = Normalizer::new(NormalizeOptions::default());
/// let tokens = normalizer.tokens("The connected connections were connecting.", Language::English);
/// assert_eq!(tokens, ["connect", "connect", "connect"]);
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct Normalizer {
    options: NormalizeOptions,
}

impl Normalizer {
    pub fn new(options: NormalizeOptions) -> Self {
        Normalizer { options }
    }

    pub fn options(&self) -> NormalizeOptions {
        self.options
    }

    /// The normalized tokens of `text`, as strings (for explanations and tests).
    pub fn tokens(&self, text: &str, language: Language) -> Vec<String> {
        let mut out = Vec::new();
        let mut lowered = String::new();
        for_each_word(text, |word| {
            if let Some(token) = self.normalize_word(word, language, &mut lowered) {
                out.push(token);
            }
        });
        out
    }

    /// Appends the hash of every normalized token of `text` to `out` (the fast path).
    pub fn token_hashes(&self, text: &str, language: Language, out: &mut Vec<u64>) {
        let seed = self.options.cache_seed(language);
        let mut lowered = String::new();
        STEM_CACHE.with(|cache| {
            let mut cache = cache.borrow_mut();
            for_each_word(text, |word| {
                if cache.len() >= STEM_CACHE_LIMIT {
                    cache.clear();
                }
                let key = xxh3_64_with_seed(word.as_bytes(), seed);
                let hash = *cache.entry(key).or_insert_with(|| {
                    self.normalize_word(word, language, &mut lowered)
                        .map(|token| hash_token(&token))
                });
                if let Some(hash) = hash {
                    out.push(hash);
                }
            });
        });
    }

    fn normalize_word(
        &self,
        word: &str,
        language: Language,
        lowered: &mut String,
    ) -> Option<String> {
        let options = self.options;
        let mut letters = false;
        let mut digits = false;
        for c in word.chars() {
            letters |= c.is_alphabetic();
            digits |= c.is_numeric();
        }
        if !letters && (!digits || options.numbers == NumberPolicy::Drop) {
            return None;
        }
        lowered.clear();
        for c in word.chars() {
            let c = if is_apostrophe(c) { '\'' } else { c };
            if options.numbers == NumberPolicy::Mask && c.is_numeric() {
                lowered.push('0');
            } else if options.lowercase {
                lowered.extend(c.to_lowercase());
            } else {
                lowered.push(c);
            }
        }
        let word = lowered.trim_matches('\'');
        if word.is_empty() {
            return None;
        }
        if digits || word.contains('_') {
            // An identifier or a number: neither a stop word nor a word to stem.
            return Some(word.to_string());
        }
        if options.remove_stopwords && language.stop_words().contains(word) {
            return None;
        }
        if options.stem {
            Some(stemmer(language).stem(word).into_owned())
        } else {
            Some(word.to_string())
        }
    }
}

fn is_apostrophe(c: char) -> bool {
    c == '\'' || c == '\u{2019}'
}

/// Calls `f` for every word of `text` by Unicode word segmentation (UAX #29). Pure-ASCII text
/// takes a byte scanner that applies the same rules for ASCII (letters joined across `.` `:`
/// `'` between letters, digits across `.` `,` `;`), several times faster than the general one.
pub fn for_each_word(text: &str, mut f: impl FnMut(&str)) {
    if !text.is_ascii() {
        for word in text.unicode_words() {
            f(word);
        }
        return;
    }
    let bytes = text.as_bytes();
    let is_word_byte = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut i = 0;
    while i < bytes.len() {
        if !is_word_byte(bytes[i]) {
            i += 1;
            continue;
        }
        let start = i;
        i += 1;
        while i < bytes.len() {
            let b = bytes[i];
            if is_word_byte(b) {
                i += 1;
                continue;
            }
            let (prev, next) = (bytes[i - 1], bytes.get(i + 1).copied().unwrap_or(b' '));
            let joins_letters = matches!(b, b'.' | b':' | b'\'')
                && prev.is_ascii_alphabetic()
                && next.is_ascii_alphabetic();
            let joins_digits = matches!(b, b'.' | b',' | b';' | b'\'')
                && prev.is_ascii_digit()
                && next.is_ascii_digit();
            if joins_letters || joins_digits {
                i += 2;
            } else {
                break;
            }
        }
        f(&text[start..i]);
    }
}
