//! The cases of the suite on pages made of blocks: copies on another host, parts of a larger
//! page, siblings of one template, short parts of a one-page edition, text of a page's own.

use dedupcrawl_index::{ContentUnit, DedupDecision, DocumentFingerprint};

use super::{Backend, document, tokens};

/// A page of `host` made of `paragraphs` (its main-content blocks, compared as one text), as
/// the pipeline makes it once the host's template is known: every block its own content.
pub fn page_of_blocks(name: &str, host: &str, paragraphs: &[Vec<u64>]) -> DocumentFingerprint {
    let stream: Vec<u64> = paragraphs.iter().flatten().copied().collect();
    let keys: Vec<u64> = paragraphs.iter().map(|p| p[0] * 31 + p[1]).collect();
    DocumentFingerprint {
        host: host.into(),
        block_fingerprints: keys.clone(),
        own_content: keys
            .iter()
            .zip(paragraphs)
            .map(|(&key, p)| ContentUnit {
                key,
                tokens: p.len() as u16,
            })
            .collect(),
        template_known: true,
        ..document(name, &stream)
    }
}

/// A reprint on another host is a near duplicate of the original. One that adds a note of its
/// own (an editor's note of a quarter of the article) resembles it under the threshold, but
/// holds all of its blocks: a near duplicate by blocks across hosts, reported with its exact
/// resemblance. One that adds half as much again is a page of its own that lists the
/// original in `contains`.
pub fn a_copy_on_another_host_that_adds_a_note_lists_the_original(
    new_backend: fn() -> Box<dyn Backend>,
) {
    let backend = new_backend();
    let index = backend.open();
    let article: Vec<Vec<u64>> = (0..8).map(|k| tokens(100 + k, 30)).collect();
    let original = page_of_blocks("news/article", "news.example", &article);
    assert!(index.check_and_insert(&original).unwrap().is_new());
    let with = |name: &str, note_tokens: usize| {
        let mut blocks = article.clone();
        blocks.push(tokens(200 + note_tokens as u64, note_tokens));
        page_of_blocks(name, "mirror.example", &blocks)
    };
    match index.check_and_insert(&with("mirror/plain", 3)).unwrap() {
        DedupDecision::NearDuplicate { of, similarity, .. } => {
            assert_eq!(of.name, "news/article");
            assert!(similarity > 0.95, "{similarity}");
        }
        other => panic!("a copy with a credit line: {other:?}"),
    }
    // 240 tokens of the article and a note of 64: 0.79 of the copy's blocks are the original.
    match index.check_and_insert(&with("mirror/noted", 64)).unwrap() {
        DedupDecision::NearDuplicate {
            of,
            similarity,
            reason,
        } => {
            assert_eq!(of.name, "news/article");
            assert_eq!(
                reason.mechanism,
                dedupcrawl_index::Mechanism::BlocksAcrossHosts
            );
            assert!(similarity < 0.8, "the exact resemblance: {similarity}");
            assert_eq!(reason.verified, Some(similarity));
            let blocks = reason.blocks.expect("the block shares");
            assert_eq!(blocks.original_in_page, 1.0);
            assert!((0.75..0.8).contains(&blocks.page_in_original), "{blocks:?}");
        }
        other => panic!("a copy with an editor's note: {other:?}"),
    }
    // A note of 130: the original is 0.65 of the page.
    match index
        .check_and_insert(&with("mirror/commented", 130))
        .unwrap()
    {
        DedupDecision::New { contains, .. } => {
            let names: Vec<&str> = contains.iter().map(|(d, _)| d.name.as_str()).collect();
            assert_eq!(names, ["news/article"]);
        }
        other => panic!("a page that quotes the article: {other:?}"),
    }
}

/// A book's one-page version and its chapters, on one host: the chapters fetched before it are
/// listed in its `contains` (more of them than a page is checked against for containment
/// otherwise), and those fetched after it are contained in it. Each chapter (2,000 tokens) is a
/// fortieth of the whole: the whole's 16 most divisible sampled shingles are in none of them,
/// so it must post (and probe) more.
pub fn a_long_page_and_its_many_parts_find_each_other(new_backend: fn() -> Box<dyn Backend>) {
    let backend = new_backend();
    let index = backend.open();
    let chapters: Vec<Vec<Vec<u64>>> = (0..40)
        .map(|c| (0..8).map(|p| tokens(1_000 + c * 10 + p, 250)).collect())
        .collect();
    let chapter =
        |c: usize| page_of_blocks(&format!("book/ch{c:02}"), "book.example", &chapters[c]);
    for c in 0..24 {
        assert!(
            index.check_and_insert(&chapter(c)).unwrap().is_new(),
            "chapter {c}"
        );
    }
    let all: Vec<Vec<u64>> = chapters.iter().flatten().cloned().collect();
    let whole = page_of_blocks("book/print", "book.example", &all);
    match index.check_and_insert(&whole).unwrap() {
        DedupDecision::New { contains, .. } => {
            let mut names: Vec<&str> = contains.iter().map(|(d, _)| d.name.as_str()).collect();
            names.sort_unstable();
            let expected: Vec<String> = (0..24).map(|c| format!("book/ch{c:02}")).collect();
            assert_eq!(names, expected, "the chapters before the whole");
        }
        other => panic!("the one-page version: {other:?}"),
    }
    for c in 24..40 {
        match index.check_and_insert(&chapter(c)).unwrap() {
            DedupDecision::Contained {
                within,
                containment,
                reason,
            } => {
                assert_eq!(within.name, "book/print", "chapter {c}");
                assert!(containment >= 0.9, "chapter {c}: {containment}");
                assert_eq!(reason.verified, Some(containment));
                assert_eq!(reason.mechanism, dedupcrawl_index::Mechanism::Containment);
            }
            other => panic!("chapter {c} after the whole: {other:?}"),
        }
    }
}

/// Two pages of one host that share their long blocks (rustdoc's trait docs under two
/// iterator structs), each with a heading, a summary and a declaration of its own (18 tokens
/// in a row): neither is a near duplicate of nor contained in the other, though nearly all
/// their shingles are shared. The same page with a few words changed, or with a short line of
/// its own (a date line, a label), is a near duplicate. The case fails without the
/// own-content veto.
pub fn a_page_with_text_of_its_own_is_not_a_duplicate_of_a_page_of_its_host(
    new_backend: fn() -> Box<dyn Backend>,
) {
    let backend = new_backend();
    let index = backend.open();
    let host = "docs.example";
    let shared: Vec<Vec<u64>> = (0..8).map(|k| tokens(3_000 + k, 60)).collect();
    let with_own = |own: Vec<u64>| -> Vec<Vec<u64>> {
        std::iter::once(own).chain(shared.iter().cloned()).collect()
    };
    let first = page_of_blocks("api/DecodeUtf16", host, &with_own(tokens(4_000, 18)));
    assert!(index.check_and_insert(&first).unwrap().is_new());
    match index
        .check_and_insert(&page_of_blocks(
            "api/EscapeDefault",
            host,
            &with_own(tokens(4_100, 18)),
        ))
        .unwrap()
    {
        DedupDecision::New { reason, .. } => {
            let vetoed = reason.vetoed.first().expect("the sibling was vetoed");
            assert_eq!(vetoed.name, "api/DecodeUtf16");
            assert!(vetoed.figure >= 0.8, "{vetoed:?}");
            assert!(
                vetoed.own_content_run >= dedupcrawl_index::OWN_CONTENT_RUN,
                "{vetoed:?}"
            );
        }
        other => panic!("a sibling with text of its own: {other:?}"),
    }
    // A line of its own of 6 tokens is no page of its own.
    let mut noted = with_own(tokens(4_000, 18));
    noted.push(tokens(4_200, 6));
    match index
        .check_and_insert(&page_of_blocks("api/DecodeUtf16?tab=1", host, &noted))
        .unwrap()
    {
        DedupDecision::NearDuplicate { of, reason, .. } => {
            assert_eq!(of.name, "api/DecodeUtf16");
            assert!(
                reason.own_content_run.is_some_and(|run| run < 16),
                "{reason:?}"
            );
        }
        other => panic!("a copy with a short line: {other:?}"),
    }
    // On another host the veto does not apply: a mirror may add text.
    let mirror = page_of_blocks(
        "mirror/EscapeDefault",
        "mirror.example",
        &with_own(tokens(4_100, 18)),
    );
    assert!(
        !index.check_and_insert(&mirror).unwrap().is_new(),
        "a copy on another host"
    );
}

/// One text in two manuals of a host (GNU Octave's two manuals both end in the GPL): the
/// pages differ in a pager line ("Next: Concept Index, Previous: Grammar and Parser") and in
/// the heading's label ("Appendix G GNU General Public License"): a few tokens here and there,
/// no run of text of their own. The second is a near duplicate of the first.
pub fn one_text_in_two_manuals_of_a_host_is_one_page_whatever_its_pager_and_label(
    new_backend: fn() -> Box<dyn Backend>,
) {
    let backend = new_backend();
    let index = backend.open();
    let license: Vec<Vec<u64>> = (0..20).map(|k| tokens(7_000 + k, 30)).collect();
    let title = tokens(7_100, 4);
    let page = |name: &str, pager: Vec<u64>, heading: Vec<u64>| {
        let mut blocks = vec![pager, heading];
        blocks.extend(license.iter().cloned());
        page_of_blocks(name, "manuals.example", &blocks)
    };
    let first = page("liboctave/Copying", tokens(7_300, 7), title.clone());
    assert!(index.check_and_insert(&first).unwrap().is_new());
    let labelled = [tokens(7_200, 2), title].concat();
    match index
        .check_and_insert(&page("octave/Copying", tokens(7_400, 7), labelled))
        .unwrap()
    {
        DedupDecision::NearDuplicate { of, .. } => assert_eq!(of.name, "liboctave/Copying"),
        other => panic!("the labelled copy: {other:?}"),
    }
}

/// A book's one-page edition and its short chapters on one host (Rust by Example: a heading, a
/// paragraph and an example, 50 tokens): a chapter has about one sampled shingle in 64 in
/// common with the edition, mostly none, so its sample cannot find it. By its own blocks
/// (posted and probed) the chapters fetched before the edition are listed in its `contains`
/// and those fetched after it are contained in it; a page that shares only the example is in
/// neither, nor is a chapter in a digest that has its blocks apart.
pub fn short_parts_and_their_one_page_edition_find_each_other_by_blocks(
    new_backend: fn() -> Box<dyn Backend>,
) {
    let backend = new_backend();
    let index = backend.open();
    // 120 chapters in the edition (6,000 tokens: a long page), the first 30 also alone.
    let chapters: Vec<Vec<Vec<u64>>> = (0..120u64)
        .map(|c| {
            vec![
                tokens(20_000 + c * 10, 4),
                tokens(20_001 + c * 10, 16),
                tokens(20_002 + c * 10, 30),
            ]
        })
        .collect();
    let host = "rbe.example";
    let chapter = |c: usize| page_of_blocks(&format!("rbe/ch{c:02}"), host, &chapters[c]);
    for c in 0..15 {
        assert!(
            index.check_and_insert(&chapter(c)).unwrap().is_new(),
            "chapter {c}"
        );
    }
    // A page of its own (heading, paragraph) that shows the example of chapter `c`.
    let sibling = |name: &str, seed: u64, c: usize| {
        page_of_blocks(
            name,
            host,
            &[
                tokens(seed, 4),
                tokens(seed + 1, 16),
                chapters[c][2].clone(),
            ],
        )
    };
    let sibling_page = sibling("rbe/other", 29_000, 3);
    assert!(index.check_and_insert(&sibling_page).unwrap().is_new());
    let all: Vec<Vec<u64>> = chapters.iter().flatten().cloned().collect();
    let edition = page_of_blocks("rbe/print", host, &all);
    match index.check_and_insert(&edition).unwrap() {
        DedupDecision::New { contains, .. } => {
            let mut names: Vec<&str> = contains.iter().map(|(d, _)| d.name.as_str()).collect();
            names.sort_unstable();
            let expected: Vec<String> = (0..15).map(|c| format!("rbe/ch{c:02}")).collect();
            assert_eq!(
                names, expected,
                "the chapters before the edition, not the sibling"
            );
        }
        other => panic!("the one-page edition: {other:?}"),
    }
    for c in 15..30 {
        match index.check_and_insert(&chapter(c)).unwrap() {
            DedupDecision::Contained { within, .. } => {
                assert_eq!(within.name, "rbe/print", "chapter {c}")
            }
            other => panic!("chapter {c} after the edition: {other:?}"),
        }
    }
    let later_sibling = sibling("rbe/other-later", 29_100, 20);
    assert!(
        index.check_and_insert(&later_sibling).unwrap().is_new(),
        "a page sharing only an example is not inside the edition"
    );
    // A digest of 16 more chapters (all their headings, then all their paragraphs, then all
    // their examples: a page that lists everything) has every block of each, none beside its
    // neighbours: a chapter's shingles that cross its blocks are not in it.
    let more: Vec<Vec<Vec<u64>>> = (0..16u64)
        .map(|c| {
            vec![
                tokens(40_000 + c * 10, 4),
                tokens(40_001 + c * 10, 16),
                tokens(40_002 + c * 10, 20),
            ]
        })
        .collect();
    let digest: Vec<Vec<u64>> = (0..3)
        .flat_map(|block| more.iter().map(move |chapter| chapter[block].clone()))
        .collect();
    let digest_page = page_of_blocks("rbe/digest", host, &digest);
    assert!(index.check_and_insert(&digest_page).unwrap().is_new());
    for (c, blocks) in more.iter().enumerate() {
        let page = page_of_blocks(&format!("rbe/more{c:02}"), host, blocks);
        assert!(
            index.check_and_insert(&page).unwrap().is_new(),
            "chapter {c} is not inside a page that has its blocks apart"
        );
    }
}

/// A page whose site asks a higher threshold than the index's (a `[[site]]` of its own) is new
/// when its closest original resembles it less than that, and says so; a page of another site
/// at the same resemblance is a near duplicate.
pub fn a_page_whose_site_asks_a_higher_threshold_is_new_under_it(
    new_backend: fn() -> Box<dyn Backend>,
) {
    let backend = new_backend();
    let index = backend.open();
    let base = tokens(60_000, 2000);
    assert!(
        index
            .check_and_insert(&document("base", &base))
            .unwrap()
            .is_new()
    );
    // About 0.9 alike.
    let edited = super::edited(&base, 20, 4);
    let mut strict = document("strict/page", &edited);
    strict.threshold = Some(0.95);
    match index.check_and_insert(&strict).unwrap() {
        DedupDecision::New { reason, .. } => {
            assert_eq!(reason.mechanism, dedupcrawl_index::Mechanism::SiteThreshold);
            assert_eq!(reason.threshold, Some(0.95));
            assert!(
                reason.verified.is_some_and(|v| (0.8..0.95).contains(&v)),
                "{reason:?}"
            );
        }
        other => panic!("under the site's threshold: {other:?}"),
    }
    let lenient = document("lenient/page", &super::edited(&base, 20, 5));
    assert!(matches!(
        index.check_and_insert(&lenient).unwrap(),
        DedupDecision::NearDuplicate { .. }
    ));
}
