//! The stored form of a queued entry (JSON with one-letter names), as the embedded backend
//! keeps it in its trees.

use serde::{Deserialize, Serialize};

use crate::canonical::CanonicalUrl;
use crate::entry::{EntryKind, FrontierEntry, Lease};
use crate::error::FrontierError;

/// The entry as stored: short field names, because there are millions of them.
#[derive(Serialize, Deserialize)]
pub(crate) struct StoredEntry {
    #[serde(rename = "u")]
    pub(crate) url: CanonicalUrl,
    #[serde(rename = "d")]
    depth: u32,
    #[serde(rename = "v", default, skip_serializing_if = "Option::is_none")]
    via: Option<String>,
    #[serde(rename = "k")]
    kind: EntryKind,
    #[serde(rename = "r", default)]
    redirect_hops: u8,
    #[serde(rename = "h", default, skip_serializing_if = "is_zero")]
    duplicate_hops: u8,
    #[serde(rename = "a", default)]
    attempts: u8,
    /// [`Lease::leased_before`]: set when the entry goes back to a queue after a lease.
    #[serde(rename = "l", default, skip_serializing_if = "std::ops::Not::not")]
    pub(crate) leased_before: bool,
}

fn is_zero(value: &u8) -> bool {
    *value == 0
}

impl StoredEntry {
    /// An entry as offered: never leased.
    pub(crate) fn new(entry: FrontierEntry, attempts: u8) -> StoredEntry {
        StoredEntry {
            url: entry.url,
            depth: entry.depth,
            via: entry.via,
            kind: entry.kind,
            redirect_hops: entry.redirect_hops,
            duplicate_hops: entry.duplicate_hops,
            attempts,
            leased_before: false,
        }
    }

    /// An entry queued again after a lease of it (requeued, delayed, or come back).
    pub(crate) fn after_lease(entry: FrontierEntry, attempts: u8) -> StoredEntry {
        StoredEntry {
            leased_before: true,
            ..StoredEntry::new(entry, attempts)
        }
    }

    pub(crate) fn encode(&self) -> Vec<u8> {
        // Serializing plain structs of strings and integers to JSON cannot fail.
        serde_json::to_vec(self).unwrap_or_default()
    }

    pub(crate) fn decode(bytes: &[u8]) -> Result<StoredEntry, FrontierError> {
        serde_json::from_slice(bytes).map_err(|e| FrontierError::Corrupt(e.to_string()))
    }

    pub(crate) fn into_lease(self, id: u64) -> Lease {
        let entry = FrontierEntry {
            url: self.url,
            depth: self.depth,
            via: self.via,
            kind: self.kind,
            redirect_hops: self.redirect_hops,
            duplicate_hops: self.duplicate_hops,
        };
        Lease::new(id, entry, self.attempts, self.leased_before)
    }
}
