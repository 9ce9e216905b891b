//! The extraction's link cap: the first `cap` followable links in document order are kept,
//! the rest only counted; `nofollow` links have a cap of their own; a page fed to the
//! tokenizer in pieces reads the same as a small one.

use dedupcrawl_textprep::{LinkKind, extract, extract_capped};

fn page(links: usize) -> String {
    let mut html = String::from("<html><body><p>Some words to read here.</p>");
    for i in 0..links {
        html.push_str(&format!("<a href=\"/l/{i}\">{i}</a> "));
        if i % 3 == 0 {
            html.push_str(&format!("<a rel=\"NoFollow ugc\" href=\"/n/{i}\">n</a> "));
        }
    }
    html.push_str("<iframe src=\"/frame\"></iframe></body></html>");
    html
}

#[test]
fn links_past_the_cap_are_counted_not_kept() {
    let html = page(100);
    let all = extract(&html);
    assert_eq!(all.links_left_out, 0);
    assert_eq!(all.links.iter().filter(|l| !l.nofollow).count(), 101);
    assert_eq!(all.links.iter().filter(|l| l.nofollow).count(), 34);

    let capped = extract_capped(&html, 10);
    let followable: Vec<&str> = capped
        .links
        .iter()
        .filter(|l| !l.nofollow)
        .map(|l| l.href.as_str())
        .collect();
    let expected: Vec<String> = (0..10).map(|i| format!("/l/{i}")).collect();
    assert_eq!(followable, expected, "the first in document order");
    assert_eq!(capped.links.iter().filter(|l| l.nofollow).count(), 10);
    // 90 anchors and the frame past the cap.
    assert_eq!(capped.links_left_out, 91);
    assert!(!capped.links.iter().any(|l| l.kind == LinkKind::Frame));
    // The text is the same whatever the cap.
    assert_eq!(capped.blocks, all.blocks);
}

#[test]
fn a_page_larger_than_one_tokenizer_piece_reads_whole() {
    // Multi-byte characters straddle the 64 KiB pieces; a tag too.
    let word = "écrire ";
    let mut html = String::from("<html><head><title>Grand</title></head><body><p>");
    while html.len() < 200 * 1024 {
        html.push_str(word);
    }
    html.push_str("</p><a href=\"/end\">fin</a></body></html>");
    let page = extract(&html);
    assert_eq!(page.title.as_deref(), Some("Grand"));
    let text = &page.blocks[0].text;
    assert!(text.split(' ').all(|w| w == "écrire"), "no word cut");
    assert_eq!(
        text.split(' ').count(),
        html.matches("écrire").count(),
        "every word kept"
    );
    assert_eq!(page.links.len(), 1);
    assert_eq!(page.links[0].href, "/end");
}
