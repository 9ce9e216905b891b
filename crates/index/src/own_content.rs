//! The own-content veto: a page is not a duplicate of (nor contained in) a page of its own
//! host when it has text of its own that the other page lacks, however alike the rest.
//!
//! Two pages of one host that share a heavy template (a shop's policy and review prose under
//! every product, rustdoc's trait documentation under every iterator type) resemble each
//! other at 0.8 and more although each has content of its own: a product description, a
//! type's name, summary and declaration. Until the host's template is learnt (counted on
//! enough pages), resemblance alone cannot tell them from copies. What tells them: text of
//! the page's own (in no block that other pages of the host have too) in which no shingle is
//! in the other page. The veto measures the longest run of the page's own shingles, in text
//! order, that the other page's shingle set lacks; a run of
//! [`OWN_CONTENT_RUN`] or more is [`OWN_CONTENT_RUN`] − (w − 1) tokens in a row the other page
//! never has in that order. A copy's noise stays under it: a changed word is a run of w, a
//! per-request date or counter none (numbers are no tokens). Pages of other hosts are not held
//! to it: a mirror that adds an editor's note is still a copy.

/// Shingles in a row that the other page lacks, from which a page has content of its own:
/// with 5-shingles, 12 tokens (about 25 words: a product description, a type's name, summary
/// and declaration).
pub const OWN_CONTENT_RUN: u32 = 16;

/// Tokens of a record's own blocks that a page lacks (by key), from which the record has
/// content of its own the page does not hold: [`OWN_CONTENT_RUN`]'s 12 tokens, counted on
/// what a record keeps (the other way round, the page is known only by its blocks' keys).
pub(crate) const OWN_CONTENT_TOKENS: u32 = OWN_CONTENT_RUN - 4;

/// The longest run of `sequence` (a run of a page's own shingles in text order, as
/// [`crate::DocumentFingerprint::own_shingles`]) whose shingles are all missing from `other`
/// (a sorted verification set).
pub(crate) fn longest_missing_run(sequence: &[u32], other: &[u32]) -> u32 {
    let (mut longest, mut run) = (0u32, 0u32);
    for shingle in sequence {
        if other.binary_search(shingle).is_ok() {
            run = 0;
        } else {
            run += 1;
            longest = longest.max(run);
        }
    }
    longest
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_longest_run_of_missing_shingles_is_counted_in_text_order() {
        let other = [1, 2, 3, 4, 5, 6];
        assert_eq!(longest_missing_run(&[1, 2, 3], &other), 0);
        assert_eq!(longest_missing_run(&[1, 9, 9, 2, 7, 8, 9, 3], &other), 3);
        assert_eq!(longest_missing_run(&[7, 8], &[]), 2);
    }
}
