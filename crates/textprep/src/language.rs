//! Languages with a Snowball stemmer in `rust-stemmers`, their stop-word lists, and detection.

use rust_stemmers::Algorithm;

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

    fn from_whatlang(lang: whatlang::Lang) -> Option<Language> {
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
const DETECTION_SAMPLE_BYTES: usize = 2048;

/// Picks the page language: a supported `<html lang>` wins (authors know), otherwise a reliable
/// whatlang detection over a text sample, otherwise `default`.
pub fn decide_language(
    lang_attribute: Option<&str>,
    text_sample: &str,
    detect: bool,
    default: Language,
) -> (Language, LanguageSource) {
    if let Some(language) = lang_attribute.and_then(Language::from_code) {
        return (language, LanguageSource::HtmlAttribute);
    }
    if detect {
        let mut end = text_sample.len().min(DETECTION_SAMPLE_BYTES);
        while !text_sample.is_char_boundary(end) {
            end -= 1;
        }
        if let Some(info) = whatlang::detect(&text_sample[..end])
            && info.is_reliable()
            && let Some(language) = Language::from_whatlang(info.lang())
        {
            return (language, LanguageSource::Detected);
        }
    }
    (default, LanguageSource::Default)
}
