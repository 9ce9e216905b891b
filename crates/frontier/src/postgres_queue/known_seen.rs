//! [`KnownSeen`]: URL keys this process knows are in the crawl's seen set in PostgreSQL.
//!
//! Why: a page offers all its links, and on a real site most of them (the menu, the sidebar,
//! the pager) were offered by the pages before it. Each offer was a statement whose every key
//! the server looked up in `frontier_seen`, and a page whose links were all known still cost
//! a round trip. The seen set only grows (no row of it is ever deleted), so a key the
//! database once answered for (new or not) is seen for good, whichever worker added it; the
//! worker answers those keys itself and sends the others. The set is a shortcut only: when it
//! holds [`MAX_KNOWN`] keys it starts again empty, and the database answers as before.
//!
//! ```ignore
//! let known = KnownSeen::default();
//! known.learn(&[key]);
//! assert!(known.contains(&key));
//! ```

use std::sync::Mutex;

use rustc_hash::FxHashSet;

use crate::seen::SeenKey;

/// Keys kept at most (16 bytes each, about 40 MB of memory with the table's overhead).
const MAX_KNOWN: usize = 1 << 21;

/// See the module documentation.
#[derive(Debug, Default)]
pub(crate) struct KnownSeen {
    keys: Mutex<FxHashSet<SeenKey>>,
}

impl KnownSeen {
    /// Whether `key` is known to be in the seen set.
    pub(crate) fn contains(&self, key: &[u8]) -> bool {
        let Ok(key) = SeenKey::try_from(key) else {
            return false;
        };
        self.lock().contains(&key)
    }

    /// For each of `keys`, whether it is known to be seen: one lock for the batch (a page's
    /// links).
    pub(crate) fn known(&self, keys: &[Vec<u8>]) -> Vec<bool> {
        let known = self.lock();
        keys.iter()
            .map(|key| SeenKey::try_from(key.as_slice()).is_ok_and(|key| known.contains(&key)))
            .collect()
    }

    /// The keys of `keys` not known to be seen, in order: what to ask the database.
    pub(crate) fn unknown(&self, keys: &[Vec<u8>]) -> Vec<Vec<u8>> {
        keys.iter()
            .zip(self.known(keys))
            .filter(|(_, known)| !known)
            .map(|(key, _)| key.clone())
            .collect()
    }

    /// Records keys the database has answered for: they are in the seen set now.
    pub(crate) fn learn<K: AsRef<[u8]>>(&self, keys: &[K]) {
        let mut known = self.lock();
        if known.len() + keys.len() > MAX_KNOWN {
            known.clear();
        }
        known.extend(
            keys.iter()
                .filter_map(|key| SeenKey::try_from(key.as_ref()).ok()),
        );
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, FxHashSet<SeenKey>> {
        // A set of keys stays valid through a panic elsewhere: each change is one call.
        self.keys
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_is_known_once_learnt() {
        let known = KnownSeen::default();
        let (a, b) = ([1u8; 16], [2u8; 16]);
        assert!(!known.contains(&a));
        known.learn(&[a]);
        assert!(known.contains(&a));
        assert!(!known.contains(&b));
        assert!(!known.contains(&[1u8; 3]), "not a key");
    }

    #[test]
    fn a_full_set_starts_again() {
        let known = KnownSeen::default();
        known.learn(&[[7u8; 16]]);
        let many: Vec<SeenKey> = (0..MAX_KNOWN as u64)
            .map(|i| {
                let mut key = [0u8; 16];
                key[..8].copy_from_slice(&i.to_be_bytes());
                key[8] = 1;
                key
            })
            .collect();
        known.learn(&many);
        assert!(!known.contains(&[7u8; 16]), "cleared when full");
        assert!(known.contains(&many[0]));
    }
}
