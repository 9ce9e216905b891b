//! Text → normalized tokens: Unicode word segmentation, lowercase, alphabetic words only,
//! stop words out, Snowball (Porter2 for English) stems. Every step can be switched off.

use std::cell::RefCell;
use std::sync::OnceLock;

use rustc_hash::{FxHashMap, FxHashSet};
use unicode_segmentation::UnicodeSegmentation;
use xxhash_rust::xxh3::{xxh3_64, xxh3_64_with_seed};

use crate::language::Language;

/// Which normalization steps run. All on by default.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct NormalizeOptions {
    /// Lowercase every word.
    pub lowercase: bool,
    /// Keep only words made of letters (apostrophes allowed): numbers, identifiers with digits
    /// or underscores, and punctuation go.
    pub alphabetic_only: bool,
    /// Drop the language's stop words (NLTK lists from the `stop-words` crate).
    pub remove_stopwords: bool,
    /// Replace words by their Snowball stem (`rust-stemmers`; English is Porter2).
    pub stem: bool,
}

impl Default for NormalizeOptions {
    fn default() -> Self {
        NormalizeOptions {
            lowercase: true,
            alphabetic_only: true,
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
            alphabetic_only: false,
            remove_stopwords: false,
            stem: false,
        }
    }

    fn cache_seed(self, language: Language) -> u64 {
        (language as u64) << 8
            | (self.lowercase as u64)
            | (self.alphabetic_only as u64) << 1
            | (self.remove_stopwords as u64) << 2
            | (self.stem as u64) << 3
    }
}

/// The 64-bit hash of one normalized token, as used for shingling.
pub fn hash_token(token: &str) -> u64 {
    xxh3_64(token.as_bytes())
}

struct LanguageResources {
    stop_words: FxHashSet<&'static str>,
    stemmer: rust_stemmers::Stemmer,
}

fn resources(language: Language) -> &'static LanguageResources {
    static TABLES: [OnceLock<LanguageResources>; Language::ALL.len()] =
        [const { OnceLock::new() }; Language::ALL.len()];
    TABLES[language as usize].get_or_init(|| LanguageResources {
        stop_words: stop_words::lookup(language.code())
            .unwrap_or(&[])
            .iter()
            .copied()
            .collect(),
        stemmer: rust_stemmers::Stemmer::create(language.stemmer_algorithm()),
    })
}

/// Words are looked up in a per-thread cache: vocabularies are Zipfian, so after a few pages
/// almost every word's fate (dropped, or the hash of its stem) is known without stemming.
const STEM_CACHE_LIMIT: usize = 250_000;

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
            if cache.len() > STEM_CACHE_LIMIT {
                cache.clear();
            }
            for_each_word(text, |word| {
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
        if options.alphabetic_only && !word.chars().all(|c| c.is_alphabetic() || is_apostrophe(c)) {
            return None;
        }
        lowered.clear();
        for c in word.chars() {
            let c = if is_apostrophe(c) { '\'' } else { c };
            if options.lowercase {
                lowered.extend(c.to_lowercase());
            } else {
                lowered.push(c);
            }
        }
        let word = lowered.trim_matches('\'');
        if word.is_empty() {
            return None;
        }
        let resources = resources(language);
        if options.remove_stopwords && resources.stop_words.contains(word) {
            return None;
        }
        if options.stem {
            Some(resources.stemmer.stem(word).into_owned())
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
