//! w-shingling of token hashes and exact set measures.

use crate::mix64;

/// The set of shingle hashes of a token-hash sequence: every run of `w` consecutive tokens
/// hashed to 64 bits, sorted and deduplicated. A document shorter than `w` tokens (but not
/// empty) is one shingle of all its tokens, so short pages still compare.
pub fn shingle_set(token_hashes: &[u64], w: usize) -> Vec<u64> {
    let mut shingles = shingle_sequence(token_hashes, w);
    shingles.sort_unstable();
    shingles.dedup();
    shingles
}

/// The shingle hashes of a token-hash sequence in text order, one per position (the
/// shingles of [`shingle_set`] before sorting).
pub fn shingle_sequence(token_hashes: &[u64], w: usize) -> Vec<u64> {
    let w = w.max(1);
    if token_hashes.is_empty() {
        return Vec::new();
    }
    let window = w.min(token_hashes.len());
    token_hashes
        .windows(window)
        .map(|tokens| {
            // Order-sensitive combination: the same tokens in another order are another shingle.
            let mut h = window as u64;
            for &t in tokens {
                h = mix64(h ^ t);
            }
            h
        })
        .collect()
}

/// |A ∩ B| of two sorted, deduplicated sets.
pub fn intersection_size(a: &[u64], b: &[u64]) -> usize {
    let (mut i, mut j, mut n) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                n += 1;
                i += 1;
                j += 1;
            }
        }
    }
    n
}

/// Resemblance r(A,B) = |A∩B| / |A∪B| of two sorted sets (1.0 for two empty sets).
pub fn jaccard(a: &[u64], b: &[u64]) -> f64 {
    let inter = intersection_size(a, b);
    let union = a.len() + b.len() - inter;
    if union == 0 {
        1.0
    } else {
        inter as f64 / union as f64
    }
}

/// Containment c(A,B) = |A∩B| / |A|: how much of A is inside B (0.0 when A is empty).
pub fn containment(a: &[u64], b: &[u64]) -> f64 {
    if a.is_empty() {
        0.0
    } else {
        intersection_size(a, b) as f64 / a.len() as f64
    }
}
