//! A tiny MinHash of one text block, to tell whether a block of one page has a counterpart in
//! another (the same paragraph, maybe edited) or is text the other page does not have at all.

/// Values per block sketch.
pub const BLOCK_SKETCH_VALUES: usize = 8;
/// Matching values that make two blocks counterparts: with word-pair sets, an edited paragraph
/// (one word in forty changed, J ≈ 0.9) matches with probability > 0.999, two unrelated
/// paragraphs (J ≈ 0.01) with probability ≈ 6·10⁻⁵.
const MATCHES_FOR_COUNTERPART: usize = 3;
/// Values two sketches share for [`BlockSketch::is_copy`].
const MATCHES_FOR_COPY: usize = 6;

/// 8 minimum hashes (16 bits each) of a block's word pairs (consecutive normalized tokens).
///
/// ```
/// use dedupcrawl_sketch::BlockSketch;
/// let words: Vec<u64> = (0..40).collect();
/// let mut edited = words.clone();
/// edited[20] = 999;
/// let other: Vec<u64> = (1000..1040).collect();
/// assert!(BlockSketch::of(&words).is_counterpart(&BlockSketch::of(&edited)));
/// assert!(!BlockSketch::of(&words).is_counterpart(&BlockSketch::of(&other)));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BlockSketch(pub [u16; BLOCK_SKETCH_VALUES]);

impl BlockSketch {
    /// The sketch of a block's token hashes (at least two tokens give a pair; fewer give a
    /// sketch of the lone token).
    pub fn of(tokens: &[u64]) -> Self {
        let mut mins = [u64::MAX; BLOCK_SKETCH_VALUES];
        let mut add = |pair: u64| {
            for (seed, min) in mins.iter_mut().enumerate() {
                let h = xxhash_rust::xxh3::xxh3_64_with_seed(&pair.to_le_bytes(), seed as u64);
                *min = (*min).min(h);
            }
        };
        if tokens.len() < 2 {
            tokens.iter().for_each(|&t| add(t));
        } else {
            for pair in tokens.windows(2) {
                add(pair[0].rotate_left(21) ^ pair[1]);
            }
        }
        BlockSketch(mins.map(|m| m as u16))
    }

    /// Whether the two blocks are (probably) the same text, perhaps edited.
    pub fn is_counterpart(&self, other: &BlockSketch) -> bool {
        self.matching_values(other) >= MATCHES_FOR_COUNTERPART
    }

    /// Whether the two blocks are (almost surely) the same text, lightly edited at most: a
    /// stricter test than [`is_counterpart`](Self::is_counterpart), for claiming that a page
    /// copies another rather than for keeping a page apart (two blocks of word-pair
    /// resemblance 0.8 pass it four times in five, of 0.5 once in seven).
    pub fn is_copy(&self, other: &BlockSketch) -> bool {
        self.matching_values(other) >= MATCHES_FOR_COPY
    }

    /// How many of the sketch's values the two blocks share.
    pub fn matching_values(&self, other: &BlockSketch) -> usize {
        self.0.iter().zip(&other.0).filter(|(a, b)| a == b).count()
    }
}
