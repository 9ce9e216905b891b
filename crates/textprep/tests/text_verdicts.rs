//! A host model judges a block at a mixed path by what the extractor did with that very text
//! there on the host's cold-start pages: rustdoc puts a type's own method docs and the
//! boilerplate docs of its trait implementations at one path, and the extractor keeps the
//! first and drops the second.

use dedupcrawl_textprep::{ExtractedPage, HostContentModel, extract};

const BOILERPLATE: &str = "Performs the subtraction operation and returns the difference.";

fn page(own: &str) -> String {
    format!(
        "<html><body><main><h1>Item</h1>\
         <div class=\"docblock\"><p>{own}</p></div>\
         <div class=\"docblock\"><p>{BOILERPLATE}</p></div>\
         </main></body></html>"
    )
}

/// The extractor's verdict: everything but the boilerplate.
fn without_boilerplate(page: &ExtractedPage) -> Vec<bool> {
    page.blocks.iter().map(|b| b.text != BOILERPLATE).collect()
}

fn kept(page: &ExtractedPage, mask: &[bool], text: &str) -> bool {
    page.blocks
        .iter()
        .zip(mask)
        .any(|(b, &keep)| keep && b.text.contains(text))
}

#[test]
fn a_text_dropped_on_every_cold_start_page_is_dropped_at_its_mixed_path() {
    let owns = [
        "Returns the number of elements in the collection right now.",
        "Creates an empty collection with room for the given number of items.",
        "Removes every element and keeps the allocated memory for later.",
        "Appends an element to the back of the collection in constant time.",
    ];
    let run = |cold_start: bool| {
        let mut model = HostContentModel::default();
        for own in owns {
            let page = extract(&page(own));
            let verdict = without_boilerplate(&page);
            if cold_start {
                model.learn_cold_start(&page, &verdict);
            } else {
                model.learn(&page, &verdict);
            }
        }
        let warm = extract(&page(
            "Splits the collection in two at the given index and returns the tail.",
        ));
        let view = model.view(&warm, &|_| true);
        (
            kept(&warm, &view, "Splits the collection"),
            kept(&warm, &view, BOILERPLATE),
        )
    };
    // The two paragraphs share a path the extractor kept half of the time: mixed.
    assert_eq!(
        run(false),
        (true, true),
        "without text verdicts the mixed path keeps both"
    );
    assert_eq!(
        run(true),
        (true, false),
        "the text the extractor dropped each time is dropped; the page's own text is kept"
    );
}
