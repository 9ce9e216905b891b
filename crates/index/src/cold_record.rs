//! A page of a host against a record of the host made before its template was told apart.
//!
//! A host's first pages are compared and recorded before the index has seen the host's template
//! (template blocks are those on enough of the host's pages): the page-level extractor keeps
//! whatever chrome it cannot tell from content, and that chrome stays in their records. A later
//! copy of such a page (a tracked or AMP URL, another per-request box) is compared on its text
//! with the template out, so its shingles resemble the early record much less than the two
//! pages resemble each other: a copy of a host's second page was archived as a page of its own.
//! [`resemblance_past_template`] compares the two by their own blocks instead, the early record's
//! blocks that the page now knows as template left out.

use rustc_hash::FxHashSet;

use crate::own_content::{ContentUnit, MIN_COMPARED_TOKENS};
use crate::record::OwnBlock;

/// The resemblance of a page's own content (`units`) with a record of its host (its own blocks,
/// `stored_own`) by block keys, each block weighing its tokens, where the record's own blocks
/// that are template now (`is_template`: on the page but not as its own content, or on enough
/// of the host's pages by the block counts) are left out: template the record's page could
/// not know yet.
///
/// `None` when the record holds none of those blocks (it is no colder than the page: the
/// shingles decide) or the page has fewer than [`MIN_COMPARED_TOKENS`] own tokens. Link lists
/// are not own content on either side, so this alone would call two hubs with one heading and
/// different links alike: the caller also asks that the page's compared text, links included,
/// be inside the record.
pub fn resemblance_past_template(
    units: &[ContentUnit],
    stored_own: &[OwnBlock],
    is_template: impl Fn(u64) -> bool,
) -> Option<f64> {
    let mut own: FxHashSet<u64> = FxHashSet::default();
    let mut own_tokens = 0u32;
    for unit in units {
        if own.insert(unit.key) {
            own_tokens += u32::from(unit.tokens);
        }
    }
    if own_tokens < MIN_COMPARED_TOKENS {
        return None;
    }
    let (mut shared, mut stored_only, mut past_template) = (0u32, 0u32, false);
    for block in stored_own {
        let tokens = u32::from(block.tokens);
        if own.contains(&block.key) {
            shared += tokens;
        } else if is_template(block.key) {
            past_template = true;
        } else {
            stored_only += tokens;
        }
    }
    past_template.then(|| f64::from(shared) / f64::from(own_tokens + stored_only))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit(key: u64, tokens: u16) -> ContentUnit {
        ContentUnit {
            key,
            tokens,
            sketch: None,
        }
    }

    fn record(own: &[(u64, u16)]) -> Vec<OwnBlock> {
        own.iter()
            .map(|&(key, tokens)| OwnBlock { key, tokens })
            .collect()
    }

    #[test]
    fn the_early_records_chrome_is_left_out_and_its_other_blocks_count() {
        let page = [unit(1, 40), unit(2, 40)];
        let blocks: FxHashSet<u64> = [1, 2, 10, 11].into_iter().collect();
        // The early record kept the host's chrome (10, 11) and a per-request title (20).
        let early = record(&[(1, 40), (2, 40), (10, 30), (11, 30), (20, 8)]);
        let resemblance =
            resemblance_past_template(&page, &early, |key| blocks.contains(&key)).unwrap();
        assert!((resemblance - 80.0 / 88.0).abs() < 1e-9, "{resemblance}");
        // A record made after the template was known holds none of it: the shingles decide.
        let warm = record(&[(1, 40), (2, 40), (20, 8)]);
        assert_eq!(
            resemblance_past_template(&page, &warm, |key| blocks.contains(&key)),
            None
        );
        // Another page of the host with the same chrome: its own blocks are not the page's.
        let other = record(&[(3, 40), (4, 40), (10, 30), (11, 30)]);
        assert_eq!(
            resemblance_past_template(&page, &other, |key| blocks.contains(&key)),
            Some(0.0)
        );
    }

    #[test]
    fn a_page_of_a_few_tokens_is_not_compared() {
        let page = [unit(1, 10)];
        let blocks: FxHashSet<u64> = [1, 10].into_iter().collect();
        let early = record(&[(1, 10), (10, 30)]);
        assert_eq!(
            resemblance_past_template(&page, &early, |key| blocks.contains(&key)),
            None
        );
    }
}
