//! The entries not yet in a run: per-table hash maps in RAM, sorted when a compaction writes them.

use rustc_hash::FxHashMap;

use crate::record::DocumentId;

/// The recent entries of one table: first member per key, further ones apart.
#[derive(Default)]
pub(super) struct RecentEntries {
    pub(super) first: FxHashMap<u64, DocumentId>,
    pub(super) more: FxHashMap<u64, Vec<DocumentId>>,
}

impl RecentEntries {
    pub(super) fn insert(&mut self, key: u64, id: DocumentId, cap: usize) -> bool {
        match self.first.entry(key) {
            std::collections::hash_map::Entry::Vacant(slot) => {
                slot.insert(id);
                true
            }
            std::collections::hash_map::Entry::Occupied(_) => {
                let more = self.more.entry(key).or_default();
                if more.len() + 1 < cap {
                    more.push(id);
                    true
                } else {
                    false
                }
            }
        }
    }

    pub(super) fn members(&self, key: u64, out: &mut Vec<DocumentId>) {
        if let Some(&first) = self.first.get(&key) {
            out.push(first);
            if let Some(more) = self.more.get(&key) {
                out.extend_from_slice(more);
            }
        }
    }

    /// Every entry, sorted by `(key, id)`.
    pub(super) fn sorted(&self) -> Vec<(u64, DocumentId)> {
        let mut entries: Vec<(u64, DocumentId)> =
            self.first.iter().map(|(&key, &id)| (key, id)).collect();
        for (&key, ids) in &self.more {
            entries.extend(ids.iter().map(|&id| (key, id)));
        }
        sort_uniform(entries)
    }

    pub(super) fn len(&self) -> usize {
        self.first.len() + self.more.values().map(Vec::len).sum::<usize>()
    }
}

/// Sorts entries whose keys are uniform (mixed) by `(key, id)`: one counting pass on the top
/// bits of the key puts each entry in its bucket (a few entries each), then each bucket is
/// sorted. Several times faster than a comparison sort of the whole (compactions sort ~250,000
/// entries each).
pub(super) fn sort_uniform(entries: Vec<(u64, DocumentId)>) -> Vec<(u64, DocumentId)> {
    if entries.len() < 64 {
        let mut entries = entries;
        entries.sort_unstable();
        return entries;
    }
    let bits = (usize::BITS - entries.len().leading_zeros()).min(24);
    let shift = 64 - bits;
    let mut starts = vec![0usize; (1 << bits) + 1];
    for &(key, _) in &entries {
        starts[(key >> shift) as usize + 1] += 1;
    }
    for bucket in 1..starts.len() {
        starts[bucket] += starts[bucket - 1];
    }
    let mut next = starts.clone();
    let mut sorted = vec![(0u64, 0 as DocumentId); entries.len()];
    for entry in entries {
        let bucket = (entry.0 >> shift) as usize;
        sorted[next[bucket]] = entry;
        next[bucket] += 1;
    }
    for bucket in starts.windows(2) {
        if bucket[1] - bucket[0] > 1 {
            sorted[bucket[0]..bucket[1]].sort_unstable();
        }
    }
    sorted
}
