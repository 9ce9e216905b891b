//! The shared [`FrontierStore`] behaviour suite on the embedded backend (sled in a temporary
//! directory).

use crate::store_suite;

use dedupcrawl_frontier::{Frontier, FrontierStore, PolitenessConfig};
use dedupcrawl_index::open_sled_waiting_for_lock;

/// The embedded backend on a temporary directory of its own.
struct Embedded {
    dir: tempfile::TempDir,
}

impl store_suite::Backend for Embedded {
    fn open(&self, politeness: PolitenessConfig) -> Box<dyn FrontierStore> {
        let db = open_sled_waiting_for_lock(self.dir.path()).expect("open sled");
        let frontier = Frontier::open(&db, self.dir.path().join("seen"), politeness)
            .expect("open the frontier");
        Box::new(frontier)
    }
}

fn embedded() -> Box<dyn store_suite::Backend> {
    Box::new(Embedded {
        dir: tempfile::tempdir().expect("temporary directory"),
    })
}

frontier_store_suite!(embedded);
