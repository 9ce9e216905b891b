//! Which indexed documents a near-duplicate check verifies: those sharing an LSH bucket with
//! the page, or (Broder's super-shingles) at least m of its super-shingles. The buckets are
//! the same for both: with super-shingles a document's buckets are its super-shingles.

use rustc_hash::FxHashMap;

use crate::record::DocumentId;
use crate::storage::IndexStorage;
use crate::{IndexConfig, IndexError, NearMethod};

/// The candidates of a page with these bucket keys, at most `limit`: with LSH, the distinct
/// members of its buckets band by band; with super-shingles, the members of at least
/// `min_shared` of its buckets, in the order in which they were first met band by band.
pub(crate) fn near_candidates<S: IndexStorage + ?Sized>(
    config: &IndexConfig,
    state: &S,
    band_keys: &[u64],
    limit: usize,
) -> Result<Vec<DocumentId>, IndexError> {
    let min_shared = match config.near_method {
        NearMethod::Lsh => return state.lsh_candidates(band_keys, limit),
        NearMethod::SuperShingles { min_shared } => min_shared.max(1),
    };
    let mut shared: FxHashMap<DocumentId, usize> = FxHashMap::default();
    let mut order = Vec::new();
    for members in state.bucket_members(band_keys)? {
        for id in members {
            let count = shared.entry(id).or_insert_with(|| {
                order.push(id);
                0
            });
            *count += 1;
        }
    }
    order.retain(|id| shared[id] >= min_shared);
    order.truncate(limit);
    Ok(order)
}
