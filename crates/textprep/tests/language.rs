//! The language a page is stemmed in comes from its text first: the same text is tokenized
//! alike whatever `<html lang>` its page declares (an i18n site's untranslated pages are
//! English under `lang="es"`), and a declaration its text fits stands.

use dedupcrawl_textprep::{Language, LanguageSource, TextPrep, TextPrepConfig, View};

const ENGLISH: &str = "Ownership is a set of rules that govern how a Rust program manages memory. \
    All programs have to manage the way they use a computer's memory while running. Some \
    languages have garbage collection that regularly looks for no-longer-used memory as the \
    program runs; in other languages, the programmer must explicitly allocate and free the \
    memory.";

const SPANISH: &str = "La propiedad es un conjunto de reglas que rigen cómo un programa de Rust \
    gestiona la memoria. Todos los programas tienen que gestionar la forma en que usan la \
    memoria de una computadora mientras se ejecutan. Algunos lenguajes tienen recolección de \
    basura que busca regularmente la memoria que ya no se usa mientras el programa se ejecuta.";

fn page(lang: &str, text: &str) -> String {
    format!(
        "<!DOCTYPE html><html lang=\"{lang}\"><head><title>Ownership</title></head><body>\
         <nav><a href=\"/\">Home</a></nav><main><h1>What is ownership?</h1><p>{text}</p>\
         </main></body></html>"
    )
}

fn decided(lang: &str, text: &str) -> (Language, LanguageSource, Vec<u64>) {
    let prep = TextPrep::new(TextPrepConfig::default());
    let page = prep.prepare_alone(&page(lang, text), None);
    let tokens = prep.token_hashes(&page, View::MainContent, &|_| false);
    (page.language, page.language_source, tokens)
}

#[test]
fn an_english_text_under_another_declaration_is_stemmed_as_english() {
    let (language, source, declared_spanish) = decided("es", ENGLISH);
    assert_eq!(
        (language, source),
        (Language::English, LanguageSource::Detected)
    );
    let (language, source, declared_english) = decided("en", ENGLISH);
    assert_eq!(
        (language, source),
        (Language::English, LanguageSource::HtmlAttribute)
    );
    assert!(!declared_english.is_empty());
    assert_eq!(
        declared_spanish, declared_english,
        "the same text, the same tokens"
    );
    let (_, _, undeclared) = decided("", ENGLISH);
    assert_eq!(undeclared, declared_english);
}

#[test]
fn a_declaration_the_text_fits_stands_and_one_it_does_not_is_corrected() {
    let (language, source, _) = decided("es-MX", SPANISH);
    assert_eq!(
        (language, source),
        (Language::Spanish, LanguageSource::HtmlAttribute)
    );
    let (language, source, as_spanish) = decided("en", SPANISH);
    assert_eq!(
        (language, source),
        (Language::Spanish, LanguageSource::Detected)
    );
    assert_eq!(as_spanish, decided("es", SPANISH).2);
}

#[test]
fn a_short_text_or_detection_off_keeps_the_declaration() {
    // Too few words for their stop words to say anything.
    let (language, source, _) = decided("de", "Ownership rules and memory.");
    assert_eq!(
        (language, source),
        (Language::German, LanguageSource::HtmlAttribute)
    );
    let prep = TextPrep::new(TextPrepConfig {
        detect_language: false,
        ..TextPrepConfig::default()
    });
    let page = prep.prepare_alone(&page("es", ENGLISH), None);
    assert_eq!(
        (page.language, page.language_source),
        (Language::Spanish, LanguageSource::HtmlAttribute)
    );
}

/// A one-page edition of a partly translated book: a long Spanish start, then a chapter left
/// in English. The chapter is stemmed as English there too, so its tokens are the same as on
/// its own page (until per-block languages the whole edition was stemmed as Spanish and the
/// chapter's tokens on the two pages had nothing in common).
#[test]
fn an_english_chapter_in_a_long_spanish_edition_is_stemmed_as_english() {
    let prep = TextPrep::new(TextPrepConfig::default());
    let chapter: String = (0..40)
        .map(|k| format!("<p>Chapter paragraph {k}. {ENGLISH}</p>"))
        .collect();
    let spanish: String = (0..120)
        .map(|k| format!("<p>Párrafo {k}. {SPANISH}</p>"))
        .collect();
    let edition = format!(
        "<!DOCTYPE html><html lang=\"es\"><head><title>Libro</title></head><body>\
         <main><h1>El libro</h1>{spanish}<h1>Ownership</h1>{chapter}</main></body></html>"
    );
    let alone = format!(
        "<!DOCTYPE html><html lang=\"es\"><head><title>Ownership</title></head><body>\
         <main><h1>Ownership</h1>{chapter}</main></body></html>"
    );
    let edition = prep.prepare_alone(&edition, None);
    assert_eq!(edition.language, Language::Spanish);
    assert!(edition.block_languages.is_some(), "a mixed long page");
    let edition_tokens = prep.token_hashes(&edition, View::MainContent, &|_| false);
    let alone = prep.prepare_alone(&alone, None);
    assert_eq!(alone.language, Language::English);
    let alone_tokens = prep.token_hashes(&alone, View::MainContent, &|_| false);
    // The chapter's paragraphs (its heading aside) are the edition's last tokens.
    let paragraphs = &alone_tokens[alone_tokens.len() - 40 * 30..];
    assert!(
        edition_tokens.ends_with(paragraphs),
        "the chapter's English tokens are in the edition"
    );
    // A long page in one language keeps one.
    let english_book: String = (0..160).map(|k| format!("<p>{k}. {ENGLISH}</p>")).collect();
    let english_book = prep.prepare_alone(
        &format!("<html lang=\"en\"><body><main>{english_book}</main></body></html>"),
        None,
    );
    assert_eq!(english_book.block_languages, None);
}
