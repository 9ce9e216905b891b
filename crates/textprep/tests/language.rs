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
