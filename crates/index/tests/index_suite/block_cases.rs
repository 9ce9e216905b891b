//! The cases of the suite on pages made of blocks: copies on another host block by block,
//! parts of a larger page, siblings of one template, short parts of a one-page edition.

use dedupcrawl_index::{ContentUnit, DedupDecision, DocumentFingerprint};
use dedupcrawl_sketch::BlockSketch;

use super::{Backend, document, tokens};

/// A page of `host` made of `paragraphs` (its substantial content blocks), each followed in
/// the token stream by a token of the host's own (an ad label, a link: what sits between the
/// paragraphs of a page in another template), so its shingles resemble another host's copy
/// well below the blocks.
fn page_of_blocks(name: &str, host: &str, paragraphs: &[Vec<u64>]) -> DocumentFingerprint {
    let mut page = page_of_short_and_long_blocks(name, host, paragraphs);
    // Every block sketched, however short.
    page.block_sketches = paragraphs.iter().map(|p| BlockSketch::of(p)).collect();
    for (unit, p) in page.own_content.iter_mut().zip(paragraphs) {
        unit.sketch = Some(BlockSketch::of(p));
    }
    page
}

/// A page of `paragraphs` as the pipeline makes it: a block of 12 tokens or more has a
/// sketch, a shorter one (a heading, a one-line summary) only its key.
pub fn page_of_short_and_long_blocks(
    name: &str,
    host: &str,
    paragraphs: &[Vec<u64>],
) -> DocumentFingerprint {
    let host_token = 10_000_000 + host.len() as u64;
    let stream: Vec<u64> = paragraphs
        .iter()
        .flat_map(|p| p.iter().copied().chain([host_token]))
        .collect();
    let sketches: Vec<Option<BlockSketch>> = paragraphs
        .iter()
        .map(|p| (p.len() >= 12).then(|| BlockSketch::of(p)))
        .collect();
    let keys: Vec<u64> = paragraphs.iter().map(|p| p[0] * 31 + p[1]).collect();
    DocumentFingerprint {
        host: host.into(),
        block_fingerprints: keys.clone(),
        block_sketches: sketches.iter().flatten().copied().collect(),
        own_content: keys
            .iter()
            .zip(&sketches)
            .zip(paragraphs)
            .map(|((&key, &sketch), p)| ContentUnit {
                key,
                tokens: p.len() as u16,
                sketch,
            })
            .collect(),
        own_sequence: keys,
        template_known: true,
        ..document(name, &stream)
    }
}

/// A reprint on another host that holds all of the original and adds a note of its own (an
/// editor's note of a quarter of the article) is a near duplicate of it, although its
/// resemblance is a little under the threshold; one that adds half as much again is a page
/// of its own that lists the original in `contains`.
pub fn a_copy_on_another_host_that_adds_a_note_is_a_near_duplicate(
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
    // 240 tokens of the article and a note of 64: 0.79 of the copy is the original.
    match index.check_and_insert(&with("mirror/noted", 64)).unwrap() {
        DedupDecision::NearDuplicate { of, similarity } => {
            assert_eq!(of.name, "news/article");
            assert!((0.75..0.8).contains(&similarity), "{similarity}");
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
            } => {
                assert_eq!(within.name, "book/print", "chapter {c}");
                assert!(containment >= 0.9, "chapter {c}: {containment}");
            }
            other => panic!("chapter {c} after the whole: {other:?}"),
        }
    }
}

/// Two pages of one host that share their long blocks (rustdoc's trait docs under two
/// iterator structs), the smaller with a heading, a summary and a declaration of its own,
/// each under 12 tokens: the larger does not list the smaller in `contains`, though nearly
/// all of the smaller's shingles are in it (18 tokens of its own are missing there). A part
/// whose blocks are all in the larger page bar a few words of its own (its heading, pager, a
/// man page's section titles: 4 blocks, 8 tokens) is listed: it was not while the rule
/// counted blocks (at most 2 missing) rather than their tokens.
pub fn a_sibling_with_the_same_shared_docs_is_not_listed_inside(
    new_backend: fn() -> Box<dyn Backend>,
) {
    let backend = new_backend();
    let index = backend.open();
    let shared: Vec<Vec<u64>> = (0..6).map(|k| tokens(3_000 + k, 60)).collect();
    let own = |seed: u64| -> Vec<Vec<u64>> { (0..3).map(|k| tokens(seed + k, 6)).collect() };
    let small: Vec<Vec<u64>> = own(4_000).into_iter().chain(shared.clone()).collect();
    // A part's own blocks are a few words each (its heading, pager, a man page's section
    // titles): 4 blocks, 8 tokens in all, none of them in the larger page.
    let chapter: Vec<Vec<u64>> = (0..3).map(|k| tokens(8_000 + k, 60)).collect();
    let part: Vec<Vec<u64>> = (0..4)
        .map(|k| tokens(5_000 + k, 2))
        .chain(chapter.clone())
        .collect();
    let mut large: Vec<Vec<u64>> = own(6_000).into_iter().chain(shared.clone()).collect();
    large.extend((0..6).map(|k| tokens(7_000 + k, 60)));
    // The host's template is known from earlier pages.
    let small_page = page_of_short_and_long_blocks("api/DecodeUtf16", "docs.example", &small);
    assert!(index.check_and_insert(&small_page).unwrap().is_new());
    let part_page = page_of_short_and_long_blocks("book/part", "docs.example", &part);
    assert!(index.check_and_insert(&part_page).unwrap().is_new());
    let mut large_blocks = large.clone();
    large_blocks.extend(chapter);
    let large_page =
        page_of_short_and_long_blocks("api/EscapeDefault", "docs.example", &large_blocks);
    match index.check_and_insert(&large_page).unwrap() {
        DedupDecision::New { contains, .. } => {
            let names: Vec<&str> = contains.iter().map(|(d, _)| d.name.as_str()).collect();
            assert!(
                !names.contains(&"api/DecodeUtf16"),
                "a sibling with its own heading, summary and declaration: {names:?}"
            );
            assert!(names.contains(&"book/part"), "{names:?}");
        }
        other => panic!("the larger page: {other:?}"),
    }
}

/// Two API pages of one generator that share an inherited-method list of about 200 tokens and
/// differ only in their titles, source files and constructors (6 tokens, under the
/// own-content check's 12; Crystal's exception classes): each is archived. A copy of the first
/// with a line of noise is still its near duplicate, and without their titles the two pages
/// would be one (the case fails without the title rule).
pub fn siblings_on_one_template_that_differ_in_their_titles_are_both_kept(
    new_backend: fn() -> Box<dyn Backend>,
) {
    let backend = new_backend();
    let index = backend.open();
    let inherited: Vec<Vec<u64>> = (0..6).map(|k| tokens(9_000 + k, 32)).collect();
    // Title, source file and constructor, 2 tokens each: 6 tokens of its own, before and
    // after the inherited lists.
    let class_blocks = |seed: u64| -> Vec<Vec<u64>> {
        let mut blocks = vec![tokens(seed, 2), tokens(seed + 1, 2)];
        blocks.extend(inherited.iter().cloned());
        blocks.push(tokens(seed + 2, 2));
        blocks
    };
    let titled_page = |name: &str, blocks: &[Vec<u64>]| {
        let mut page = page_of_short_and_long_blocks(name, "api.example", blocks);
        page.name_block = Some(page.own_sequence[0]);
        page
    };
    // The name of the page a decision links to, if it links.
    let linked_to = |page: &DocumentFingerprint| match index.check_and_insert(page).unwrap() {
        DedupDecision::NearDuplicate { of, .. } | DedupDecision::Contained { within: of, .. } => {
            Some(of.name)
        }
        DedupDecision::New { .. } => None,
        other => panic!("{other:?}"),
    };
    let first = titled_page("api/ArgumentError", &class_blocks(9_100));
    assert_eq!(linked_to(&first), None);
    let sibling = titled_page("api/Channel/ClosedError", &class_blocks(9_200));
    assert_eq!(linked_to(&sibling), None, "a sibling with its own title");
    let untitled =
        page_of_short_and_long_blocks("api/Iterator/Stop", "api.example", &class_blocks(9_300));
    assert!(
        linked_to(&untitled).is_some(),
        "without a title the sibling is taken for a copy: the case tests the title"
    );
    let mut noisy_blocks = class_blocks(9_100);
    noisy_blocks.push(tokens(9_150, 3));
    let copy = titled_page("api/ArgumentError?ref=1", &noisy_blocks);
    let first_name = Some("api/ArgumentError".to_string());
    assert_eq!(linked_to(&copy), first_name, "a copy keeps its title");
    // An edition's untranslated page: a translated title, the same file name.
    let mut translated_blocks = class_blocks(9_100);
    translated_blocks[0] = tokens(9_400, 2);
    let translated = titled_page("es/ArgumentError", &translated_blocks);
    assert_eq!(
        linked_to(&translated),
        first_name,
        "an untranslated copy under a translated title"
    );
}

/// One text in two manuals of a host (GNU Octave's two manuals both end in the GPL): the
/// pages differ in a pager line ("Next: Concept Index, Previous: Grammar and Parser"), which
/// is no content of the page's own (a link list), and in the heading's label ("Appendix G GNU
/// General Public License"), 13 tokens in all. The second is a near duplicate of the first;
/// with its pager line counted as its own words, or with a title that has a word of its own,
/// it is a page of its own (the case fails without the label rule).
pub fn one_text_in_two_manuals_of_a_host_is_one_page_whatever_its_pager_and_label(
    new_backend: fn() -> Box<dyn Backend>,
) {
    let license: Vec<Vec<u64>> = (0..20).map(|k| tokens(7_000 + k, 30)).collect();
    let title = tokens(7_100, 4);
    // A manual's page: its pager line, its heading, the license.
    let page = |name: &str, pager: Vec<u64>, heading: Vec<u64>, pager_is_links: bool| {
        let mut blocks = vec![pager, heading.clone()];
        blocks.extend(license.iter().cloned());
        let mut page = page_of_short_and_long_blocks(name, "manuals.example", &blocks);
        page.name_block = Some(page.own_sequence[1]);
        page.name_tokens = heading.iter().map(|&t| t as u32).collect();
        if pager_is_links {
            // The pipeline leaves a pager line out of the page's own content (a link list).
            page.own_content.remove(0);
            page.own_sequence.remove(0);
        }
        page
    };
    let labelled = [tokens(7_200, 2), title.clone()].concat();
    // The second manual's page, checked after the first's in an index of its own.
    let second_after_first = |second: DocumentFingerprint| {
        let backend = new_backend();
        let index = backend.open();
        let first = page("liboctave/Copying", tokens(7_300, 7), title.clone(), true);
        assert!(index.check_and_insert(&first).unwrap().is_new());
        index.check_and_insert(&second).unwrap()
    };
    match second_after_first(page(
        "octave/Copying",
        tokens(7_400, 7),
        labelled.clone(),
        true,
    )) {
        DedupDecision::NearDuplicate { of, .. } => assert_eq!(of.name, "liboctave/Copying"),
        other => panic!("the labelled copy: {other:?}"),
    }
    assert!(
        second_after_first(page("octave/Copying", tokens(7_400, 7), labelled, false)).is_new(),
        "a pager line that is no links is 7 words of the page's own: the case tests the rule"
    );
    // "GNU Lesser General Public License": a word of its own inside the other's title.
    let with_a_word_more = [&title[..1], &tokens(7_500, 1), &title[1..]].concat();
    assert!(
        second_after_first(page(
            "octave/Copying",
            tokens(7_400, 7),
            with_a_word_more,
            true
        ))
        .is_new(),
        "a title with a word of its own names another thing"
    );
}

/// A book's one-page edition and its short chapters on one host (Rust by Example: a heading, a
/// paragraph and an example, 40 tokens): a chapter has about one sampled shingle in 64 in
/// common with the edition, mostly none, and fewer than 3 substantial blocks, so neither its
/// sample nor the block overlap could vouch for it. By its own blocks (posted and probed) the
/// chapters fetched before the edition are listed in its `contains` and those fetched after
/// it are contained in it; a page that shares only the example is in neither.
pub fn short_parts_and_their_one_page_edition_find_each_other_by_blocks(
    new_backend: fn() -> Box<dyn Backend>,
) {
    let backend = new_backend();
    let index = backend.open();
    // 120 chapters in the edition (4,800 tokens: a long page), the first 30 also alone.
    let chapters: Vec<Vec<Vec<u64>>> = (0..120u64)
        .map(|c| {
            vec![
                tokens(20_000 + c * 10, 4),
                tokens(20_001 + c * 10, 16),
                tokens(20_002 + c * 10, 20),
            ]
        })
        .collect();
    let host = "rbe.example";
    let chapter =
        |c: usize| page_of_short_and_long_blocks(&format!("rbe/ch{c:02}"), host, &chapters[c]);
    for c in 0..15 {
        assert!(
            index.check_and_insert(&chapter(c)).unwrap().is_new(),
            "chapter {c}"
        );
    }
    // A page of its own (heading, paragraph) that shows the example of chapter `c`.
    let sibling = |name: &str, seed: u64, c: usize| {
        page_of_short_and_long_blocks(
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
    let edition = page_of_short_and_long_blocks("rbe/print", host, &all);
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
    // their examples: a page that lists everything, like Javadoc's `class-use/Object.html`)
    // has every block of each, none beside its neighbours: a chapter is not inside it.
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
    let digest_page = page_of_short_and_long_blocks("rbe/digest", host, &digest);
    assert!(index.check_and_insert(&digest_page).unwrap().is_new());
    for (c, blocks) in more.iter().enumerate() {
        let page = page_of_short_and_long_blocks(&format!("rbe/more{c:02}"), host, blocks);
        assert!(
            index.check_and_insert(&page).unwrap().is_new(),
            "chapter {c} is not inside a page that has its blocks apart"
        );
    }
}
