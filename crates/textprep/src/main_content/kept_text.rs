//! The extractor's text as counted word pairs and lines, claimed by our blocks one occurrence
//! at a time.

use rustc_hash::FxHashMap;

/// The extractor's output as counted word pairs and lines, to test our blocks against. Each
/// occurrence is used up by the block that claims it, so a page that repeats its article (an
/// AMP copy, a print version in a hidden element, a teaser of the lead paragraph) keeps one
/// copy, as the extractor did.
pub(super) struct KeptText {
    pairs: FxHashMap<u64, u32>,
    lines: FxHashMap<u64, u32>,
}

impl KeptText {
    pub(super) fn new(text: &str) -> Self {
        let mut pairs = FxHashMap::default();
        let mut lines = FxHashMap::default();
        let mut previous_line_end = None;
        for line in text.lines() {
            let words = word_hashes(line);
            let (Some(&first), Some(&last)) = (words.first(), words.last()) else {
                continue;
            };
            *lines.entry(sequence_hash(&words)).or_insert(0) += 1;
            // Pairs across line ends too: the extractor and we may cut blocks at other places.
            if let Some(end) = previous_line_end {
                *pairs.entry(pair_hash(end, first)).or_insert(0) += 1;
            }
            for pair in words.windows(2) {
                *pairs.entry(pair_hash(pair[0], pair[1])).or_insert(0) += 1;
            }
            previous_line_end = Some(last);
        }
        KeptText { pairs, lines }
    }

    pub(super) fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    /// Whether the extractor kept a block of these words ([`word_hashes`]), using up what it
    /// matched. A block is kept when
    /// `share` of its word pairs are in the extractor's text; a block of one or two words (a
    /// heading, a label) only when it stands as a line of its own there or (two words) as a
    /// pair, since a single word of a menu ("Home") is found in almost any text.
    pub(super) fn claim(&mut self, words: &[u64], share: f64) -> bool {
        if words.len() <= 2 {
            if let Some(&first) = words.first()
                && take(&mut self.lines, sequence_hash(words))
            {
                if let Some(&second) = words.get(1) {
                    take(&mut self.pairs, pair_hash(first, second));
                }
                return true;
            }
            return words.len() == 2 && take(&mut self.pairs, pair_hash(words[0], words[1]));
        }
        let pairs: Vec<u64> = words.windows(2).map(|w| pair_hash(w[0], w[1])).collect();
        let found = pairs
            .iter()
            .filter(|p| self.pairs.get(p).is_some_and(|&n| n > 0))
            .count();
        if (found as f64) < share * pairs.len() as f64 {
            return false;
        }
        for pair in pairs {
            take(&mut self.pairs, pair);
        }
        take(&mut self.lines, sequence_hash(words));
        true
    }
}

/// Uses up one occurrence of `key`; false when none is left.
fn take(counts: &mut FxHashMap<u64, u32>, key: u64) -> bool {
    match counts.get_mut(&key) {
        Some(n) if *n > 0 => {
            *n -= 1;
            true
        }
        _ => false,
    }
}

/// The words of `text` as the extractor's text and our blocks are matched: runs of letters and
/// digits, lowercased, also cut where a lowercase letter meets an uppercase one. Finer than
/// UAX #29 words on purpose, so both sides cut alike: the extractor re-spaces code
/// (`document.title` comes out as `document. title`) and numbers, and it puts a space between
/// adjacent inline elements that a browser (and our text) runs together
/// (`<span>Coleman</span><span>Skydome Tent</span>` is `ColemanSkydome Tent` here).
pub(super) fn word_hashes(text: &str) -> Vec<u64> {
    let mut out = Vec::new();
    let mut lowered = String::new();
    let mut previous_lowercase = false;
    for c in text.chars() {
        let alphanumeric = c.is_alphanumeric();
        if !lowered.is_empty() && (!alphanumeric || (previous_lowercase && c.is_uppercase())) {
            out.push(xxhash_rust::xxh3::xxh3_64(lowered.as_bytes()));
            lowered.clear();
        }
        if alphanumeric {
            lowered.extend(c.to_lowercase());
        }
        previous_lowercase = c.is_lowercase();
    }
    if !lowered.is_empty() {
        out.push(xxhash_rust::xxh3::xxh3_64(lowered.as_bytes()));
    }
    out
}

fn pair_hash(a: u64, b: u64) -> u64 {
    a.rotate_left(17) ^ b.wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

fn sequence_hash(words: &[u64]) -> u64 {
    words
        .iter()
        .fold(0xcbf2_9ce4_8422_2325, |h, &w| pair_hash(h, w))
}
