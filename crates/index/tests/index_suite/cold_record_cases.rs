//! A page of a host against a record of the host made before its template was told apart:
//! the record kept chrome that is template now.

use dedupcrawl_index::DedupDecision;

use super::block_cases::page_of_blocks;
use super::{Backend, tokens};

/// A host's first article was recorded with its chrome (a share box, a mailing-list box, a
/// footer: nothing told them apart yet). Its AMP version, the article alone, checked once the
/// chrome is template, resembles the record less than the threshold but is wholly inside it:
/// contained in it. Another article of the host without its chrome is a page of its own.
pub fn a_copy_of_a_page_recorded_before_the_template_was_known_is_contained_in_it(
    new_backend: fn() -> Box<dyn Backend>,
) {
    let backend = new_backend();
    let index = backend.open();
    let host = "notes.example";
    let chrome: Vec<Vec<u64>> = (0..4).map(|k| tokens(8_000 + k, 30)).collect();
    let article =
        |n: u64| -> Vec<Vec<u64>> { (0..6).map(|k| tokens(8_100 + 10 * n + k, 30)).collect() };
    let with_chrome = |n: u64| [article(n), chrome.clone()].concat();
    let first = dedupcrawl_index::DocumentFingerprint {
        template_known: false,
        ..page_of_blocks("notes/0", host, &with_chrome(0))
    };
    assert!(index.check_and_insert(&first).unwrap().is_new());
    // Three more articles: the chrome is on four of the host's pages now.
    for n in 1..=3 {
        let mut page = page_of_blocks(&format!("notes/{n}"), host, &with_chrome(n));
        page.template_known = n >= 3;
        assert!(index.check_and_insert(&page).unwrap().is_new(), "note {n}");
    }
    let amp = page_of_blocks("amp/notes/0", host, &article(0));
    match index.check_and_insert(&amp).unwrap() {
        DedupDecision::Contained {
            within,
            containment,
            ..
        } => {
            assert_eq!(within.name, "notes/0");
            assert!(containment >= 0.99, "{containment}");
        }
        other => panic!("the AMP version of the host's first note: {other:?}"),
    }
    let other = page_of_blocks("amp/notes/4", host, &article(4));
    assert!(index.check_and_insert(&other).unwrap().is_new());
}
