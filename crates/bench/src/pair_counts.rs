//! Exact intersection sizes of every pair of shingle sets that share a value: an inverted
//! index over the values, every posting list expanded into pairs (no cap), counted in a dense
//! triangular matrix (fine for the few thousand documents of the corpus). The truth of the
//! accuracy benchmarks.

pub(crate) fn tri(n: usize, i: usize, j: usize) -> usize {
    debug_assert!(i < j);
    i * (2 * n - i - 1) / 2 + (j - i - 1)
}

/// Intersection counts of every pair of sets sharing a value.
pub struct PairCounts {
    n: usize,
    counts: Vec<u32>,
    /// The longest posting list (the most common value).
    pub longest_posting: usize,
    /// Pairs expanded from the posting lists.
    pub expanded_pairs: u64,
}

impl PairCounts {
    pub fn new(sets: &[&Vec<u64>]) -> Self {
        let n = sets.len();
        assert!(n <= 40_000, "dense pair matrix: too many documents ({n})");
        let mut postings: Vec<(u64, u32)> = sets
            .iter()
            .enumerate()
            .flat_map(|(d, s)| s.iter().map(move |&h| (h, d as u32)))
            .collect();
        postings.sort_unstable();
        let mut counts = vec![0u32; n * n.saturating_sub(1) / 2];
        let (mut longest, mut expanded) = (0usize, 0u64);
        for group in postings.chunk_by(|a, b| a.0 == b.0) {
            longest = longest.max(group.len());
            expanded += (group.len() * (group.len() - 1) / 2) as u64;
            for (a, &(_, i)) in group.iter().enumerate() {
                let base = tri(n, i as usize, i as usize + 1);
                for &(_, j) in &group[a + 1..] {
                    // The same set never holds a value twice, so i < j.
                    counts[base + (j - i - 1) as usize] += 1;
                }
            }
        }
        PairCounts {
            n,
            counts,
            longest_posting: longest,
            expanded_pairs: expanded,
        }
    }

    /// |A_i ∩ A_j| (`u32::MAX` for i = j).
    pub fn get(&self, i: usize, j: usize) -> u32 {
        let (i, j) = if i < j { (i, j) } else { (j, i) };
        if i == j {
            return u32::MAX;
        }
        self.counts[tri(self.n, i, j)]
    }
}
