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

/// Positions one of which a copy always shares: [`BlockSketch::is_copy`] needs
/// `MATCHES_FOR_COPY` of the values equal, so at most `BLOCK_SKETCH_VALUES - MATCHES_FOR_COPY`
/// differ, and of any this many positions one is equal.
const COPY_PROBE_POSITIONS: usize = BLOCK_SKETCH_VALUES - MATCHES_FOR_COPY + 1;

/// Sketches indexed for [`BlockSketch::is_copy`] lookups: one sorted list per probe position,
/// so a lookup compares only the sketches that share a value there, not every sketch (a page
/// of 300 blocks against a candidate of 300 was 90,000 comparisons).
///
/// ```
/// use dedupcrawl_sketch::{BlockSketch, CopyFinder};
/// let blocks: Vec<BlockSketch> = (0..50u64)
///     .map(|b| BlockSketch::of(&(b * 100..b * 100 + 30).collect::<Vec<u64>>()))
///     .collect();
/// let finder = CopyFinder::new(&blocks);
/// assert!(finder.has_copy_of(&blocks[7]));
/// assert!(!finder.has_copy_of(&BlockSketch::of(&(9_000..9_030).collect::<Vec<u64>>())));
/// ```
pub struct CopyFinder<'a> {
    sketches: &'a [BlockSketch],
    by_position: [Vec<(u16, u32)>; COPY_PROBE_POSITIONS],
    /// Sketches already claimed by [`claim_copy_of`](Self::claim_copy_of).
    claimed: Vec<bool>,
}

impl<'a> CopyFinder<'a> {
    pub fn new(sketches: &'a [BlockSketch]) -> Self {
        let by_position = std::array::from_fn(|position| {
            let mut list: Vec<(u16, u32)> = sketches
                .iter()
                .enumerate()
                .map(|(i, sketch)| (sketch.0[position], i as u32))
                .collect();
            list.sort_unstable();
            list
        });
        CopyFinder {
            sketches,
            by_position,
            claimed: vec![false; sketches.len()],
        }
    }

    /// Whether one of the indexed sketches is a copy of `sketch`: the same answer as
    /// `sketches.iter().any(|s| s.is_copy(sketch))`.
    pub fn has_copy_of(&self, sketch: &BlockSketch) -> bool {
        self.copies_of(sketch).next().is_some()
    }

    /// Whether an indexed sketch not claimed yet is a copy of `sketch`; if so it is claimed,
    /// so that each indexed block vouches for one block at most.
    ///
    /// Why: blocks that are mostly one shared text find the same block as their copy. A
    /// Doxygen member list's entries are each "`name` (defined in `the class's name`)", a
    /// class name of 14 template parameters to one or two words of its own, so each of 30
    /// entries passed as a copy of the class page's title, and the list counted as "inside"
    /// the class page (true containment 0.15).
    pub fn claim_copy_of(&mut self, sketch: &BlockSketch) -> bool {
        // The same sketch first: another block's copy claimed here may be the only one
        // left for that block.
        let claimed = &self.claimed;
        let found = self
            .copies_of(sketch)
            .find(|&i| !claimed[i] && self.sketches[i] == *sketch)
            .or_else(|| self.copies_of(sketch).find(|&i| !claimed[i]));
        if let Some(i) = found {
            self.claimed[i] = true;
        }
        found.is_some()
    }

    /// Indexes of the indexed sketches that are copies of `sketch` (one may come more than
    /// once: once for each probe position it shares).
    fn copies_of<'s>(&'s self, sketch: &'s BlockSketch) -> impl Iterator<Item = usize> + 's {
        self.by_position
            .iter()
            .enumerate()
            .flat_map(move |(position, list)| {
                let value = sketch.0[position];
                let start = list.partition_point(|&(v, _)| v < value);
                list[start..]
                    .iter()
                    .take_while(move |&&(v, _)| v == value)
                    .map(|&(_, i)| i as usize)
            })
            .filter(move |&i| self.sketches[i].is_copy(sketch))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The finder answers as the scan does, on sketches that share values at every count.
    #[test]
    fn copy_finder_agrees_with_the_scan() {
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % 4) as u16
        };
        // Values from a tiny alphabet, so that every number of matching values occurs.
        let sketches: Vec<BlockSketch> = (0..300)
            .map(|_| BlockSketch(std::array::from_fn(|_| next())))
            .collect();
        let finder = CopyFinder::new(&sketches[..150]);
        let mut copies = 0;
        for probe in &sketches[150..] {
            let scanned = sketches[..150].iter().any(|s| s.is_copy(probe));
            assert_eq!(finder.has_copy_of(probe), scanned);
            copies += usize::from(scanned);
        }
        assert!(copies > 0 && copies < 150, "{copies}");
    }

    /// Each indexed sketch answers one claim: two probes that are copies of one block find it
    /// once, and a second copy of it is found for the second.
    #[test]
    fn a_claimed_copy_answers_once() {
        let block = |start: u64| BlockSketch::of(&(start..start + 30).collect::<Vec<u64>>());
        let indexed = [block(0), block(100)];
        let mut finder = CopyFinder::new(&indexed);
        assert!(finder.claim_copy_of(&block(0)));
        assert!(!finder.claim_copy_of(&block(0)), "the only copy is claimed");
        assert!(finder.has_copy_of(&block(0)), "has_copy_of does not claim");
        let twice = [block(0), block(0)];
        let mut finder = CopyFinder::new(&twice);
        assert!(finder.claim_copy_of(&block(0)));
        assert!(
            finder.claim_copy_of(&block(0)),
            "a second copy answers the second claim"
        );
        assert!(!finder.claim_copy_of(&block(0)));
    }
}
