//! Languages with a Snowball stemmer in `rust-stemmers`, their stop-word lists, and detection.

use std::sync::OnceLock;

use rust_stemmers::Algorithm;
use rustc_hash::{FxHashMap, FxHashSet};

/// A language the normalizer can stem. Every variant has a Snowball stemmer and an NLTK
/// stop-word list (Tamil has no NLTK list: stop words are then kept).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Language {
    Arabic,
    Danish,
    Dutch,
    English,
    Finnish,
    French,
    German,
    Greek,
    Hungarian,
    Italian,
    Norwegian,
    Portuguese,
    Romanian,
    Russian,
    Spanish,
    Swedish,
    Tamil,
    Turkish,
}

impl Language {
    pub const ALL: [Language; 18] = [
        Language::Arabic,
        Language::Danish,
        Language::Dutch,
        Language::English,
        Language::Finnish,
        Language::French,
        Language::German,
        Language::Greek,
        Language::Hungarian,
        Language::Italian,
        Language::Norwegian,
        Language::Portuguese,
        Language::Romanian,
        Language::Russian,
        Language::Spanish,
        Language::Swedish,
        Language::Tamil,
        Language::Turkish,
    ];

    /// ISO 639-1 code.
    pub fn code(self) -> &'static str {
        match self {
            Language::Arabic => "ar",
            Language::Danish => "da",
            Language::Dutch => "nl",
            Language::English => "en",
            Language::Finnish => "fi",
            Language::French => "fr",
            Language::German => "de",
            Language::Greek => "el",
            Language::Hungarian => "hu",
            Language::Italian => "it",
            Language::Norwegian => "no",
            Language::Portuguese => "pt",
            Language::Romanian => "ro",
            Language::Russian => "ru",
            Language::Spanish => "es",
            Language::Swedish => "sv",
            Language::Tamil => "ta",
            Language::Turkish => "tr",
        }
    }

    /// From an ISO 639-1 code or a BCP 47 tag such as `de-AT` (case-insensitive).
    pub fn from_code(tag: &str) -> Option<Language> {
        let primary = tag.trim().split(['-', '_']).next()?.to_ascii_lowercase();
        let primary = match primary.as_str() {
            "nb" | "nn" => "no",
            other => other,
        };
        Language::ALL.into_iter().find(|l| l.code() == primary)
    }

    /// The language's NLTK stop words (empty for Tamil).
    pub(crate) fn stop_words(self) -> &'static FxHashSet<&'static str> {
        static TABLES: [OnceLock<FxHashSet<&'static str>>; Language::ALL.len()] =
            [const { OnceLock::new() }; Language::ALL.len()];
        TABLES[self as usize].get_or_init(|| {
            stop_words::lookup(self.code())
                .unwrap_or(&[])
                .iter()
                .copied()
                .collect()
        })
    }

    pub(crate) fn stemmer_algorithm(self) -> Algorithm {
        match self {
            Language::Arabic => Algorithm::Arabic,
            Language::Danish => Algorithm::Danish,
            Language::Dutch => Algorithm::Dutch,
            Language::English => Algorithm::English,
            Language::Finnish => Algorithm::Finnish,
            Language::French => Algorithm::French,
            Language::German => Algorithm::German,
            Language::Greek => Algorithm::Greek,
            Language::Hungarian => Algorithm::Hungarian,
            Language::Italian => Algorithm::Italian,
            Language::Norwegian => Algorithm::Norwegian,
            Language::Portuguese => Algorithm::Portuguese,
            Language::Romanian => Algorithm::Romanian,
            Language::Russian => Algorithm::Russian,
            Language::Spanish => Algorithm::Spanish,
            Language::Swedish => Algorithm::Swedish,
            Language::Tamil => Algorithm::Tamil,
            Language::Turkish => Algorithm::Turkish,
        }
    }

    pub(crate) fn from_whatlang(lang: whatlang::Lang) -> Option<Language> {
        use whatlang::Lang;
        Some(match lang {
            Lang::Ara => Language::Arabic,
            Lang::Dan => Language::Danish,
            Lang::Nld => Language::Dutch,
            Lang::Eng => Language::English,
            Lang::Fin => Language::Finnish,
            Lang::Fra => Language::French,
            Lang::Deu => Language::German,
            Lang::Ell => Language::Greek,
            Lang::Hun => Language::Hungarian,
            Lang::Ita => Language::Italian,
            Lang::Nob => Language::Norwegian,
            Lang::Por => Language::Portuguese,
            Lang::Ron => Language::Romanian,
            Lang::Rus => Language::Russian,
            Lang::Spa => Language::Spanish,
            Lang::Swe => Language::Swedish,
            Lang::Tam => Language::Tamil,
            Lang::Tur => Language::Turkish,
            _ => return None,
        })
    }
}

/// How the language of a page was decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LanguageSource {
    /// `<html lang>` named a supported language.
    HtmlAttribute,
    /// Detected from the text (whatlang, reliable result).
    Detected,
    /// Nothing reliable: the configured default.
    Default,
}

/// How much text detection looks at: enough for a reliable trigram guess, cheap per page.
pub(crate) const DETECTION_SAMPLE_BYTES: usize = 2048;

/// Words of a sample below which its stop words say nothing of its language: the declared
/// language stands.
pub(crate) const FIT_MIN_WORDS: u32 = 20;

/// Picks the page language: the text's own language first, so the same text is stemmed alike
/// whatever page it sits on; `<html lang>` where the text does not say otherwise; the
/// configured `default` when nothing says anything.
///
/// * A supported `<html lang>` stands when the text fits it: no other language has more of
///   its stop words in the sample (a cheap count, one table lookup a word). Declarations are
///   often wrong: an i18n site serves its untranslated pages in English under `lang="es"`
///   (Rust by Example: 178 of its 199 `es/` pages), and a CMS template says `lang="en"` on
///   every page. Stemmed as the declared language, such a page and the page it copies share
///   almost no tokens (J 0.03 for two identical texts). When the text does not fit, whatlang
///   decides if it is sure; else the declaration stands.
/// * No supported `<html lang>`: whatlang if it is sure, else `default`.
///
/// `detect = false` takes the declaration (else `default`) and never looks at the text.
///
/// ```
/// use dedupcrawl_textprep::{Language, LanguageSource, decide_language};
/// let english = "The quick brown fox jumps over the lazy dog and then it runs into the \
///     woods where nobody can see it, because the trees are tall and the light is low.";
/// // An English text under a Spanish declaration is English.
/// assert_eq!(
///     decide_language(Some("es"), english, true, Language::English),
///     (Language::English, LanguageSource::Detected)
/// );
/// // A declaration the text fits stands.
/// assert_eq!(
///     decide_language(Some("en"), english, true, Language::French),
///     (Language::English, LanguageSource::HtmlAttribute)
/// );
/// ```
pub fn decide_language(
    lang_attribute: Option<&str>,
    text_sample: &str,
    detect: bool,
    default: Language,
) -> (Language, LanguageSource) {
    let declared = lang_attribute.and_then(Language::from_code);
    if !detect {
        return match declared {
            Some(language) => (language, LanguageSource::HtmlAttribute),
            None => (default, LanguageSource::Default),
        };
    }
    let mut end = text_sample.len().min(DETECTION_SAMPLE_BYTES);
    while !text_sample.is_char_boundary(end) {
        end -= 1;
    }
    let sample = &text_sample[..end];
    let stop_words = StopWordCounts::of(sample);
    if let Some(language) = declared
        && stop_words.fit(language)
    {
        return (language, LanguageSource::HtmlAttribute);
    }
    let detected = whatlang::detect(sample)
        .filter(whatlang::Info::is_reliable)
        .and_then(|info| Language::from_whatlang(info.lang()))
        // whatlang is unsure of short or code-heavy text whose stop words still leave no doubt.
        .or_else(|| stop_words.clear_leader());
    match (detected, declared) {
        (Some(language), _) if Some(language) == declared => {
            (language, LanguageSource::HtmlAttribute)
        }
        (Some(language), _) => (language, LanguageSource::Detected),
        (None, Some(language)) => (language, LanguageSource::HtmlAttribute),
        (None, None) => (default, LanguageSource::Default),
    }
}

/// How many words of a sample are stop words of each language (`Language as usize`).
pub(crate) struct StopWordCounts {
    counts: [u32; Language::ALL.len()],
    pub(crate) words: u32,
}

impl StopWordCounts {
    pub(crate) fn of(sample: &str) -> StopWordCounts {
        let table = stop_word_languages();
        let mut counts = [0u32; Language::ALL.len()];
        let mut words = 0;
        let mut lowered = String::new();
        for word in sample
            .split(|c: char| !c.is_alphabetic() && c != '\'')
            .filter(|word| !word.is_empty())
        {
            words += 1;
            lowered.clear();
            lowered.extend(word.chars().flat_map(char::to_lowercase));
            if let Some(&languages) = table.get(lowered.as_str()) {
                for (index, count) in counts.iter_mut().enumerate() {
                    *count += (languages >> index) & 1;
                }
            }
        }
        StopWordCounts { counts, words }
    }

    /// Whether the sample fits `language`: too short to tell, or no other language has more of
    /// its stop words. Measured on the Rust docs, a declared English page's sample has 4–48 %
    /// English stop words (code-heavy API pages the least), an English text 0–15 % Spanish ones
    /// and a Spanish text 15–40 %: a fixed share cannot tell them apart, a comparison can.
    pub(crate) fn fit(&self, language: Language) -> bool {
        let own = self.counts[language as usize];
        self.words < FIT_MIN_WORDS || self.counts.iter().all(|&other| other <= own)
    }

    /// The language with the most stop words when it leaves no doubt: at least twice the
    /// runner-up's and a tenth of the words (English text: 22 of 62 words against 9 French).
    pub(crate) fn clear_leader(&self) -> Option<Language> {
        if self.words < FIT_MIN_WORDS {
            return None;
        }
        let mut ranked: Vec<(u32, Language)> = Language::ALL
            .iter()
            .map(|&language| (self.counts[language as usize], language))
            .collect();
        ranked.sort_by_key(|&(count, _)| std::cmp::Reverse(count));
        let (first, leader) = ranked[0];
        let second = ranked[1].0;
        (first >= 2 * second && first * 10 >= self.words).then_some(leader)
    }
}

/// Every stop word of every language, with the languages (one bit each, by `Language as
/// usize`) whose list has it.
fn stop_word_languages() -> &'static FxHashMap<&'static str, u32> {
    static TABLE: OnceLock<FxHashMap<&'static str, u32>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut table = FxHashMap::default();
        for language in Language::ALL {
            for &word in language.stop_words() {
                *table.entry(word).or_insert(0) |= 1 << language as usize;
            }
        }
        table
    })
}
