//! [`OutputLock`]: one crawl process per output directory, refused at once when another holds
//! it (before anything in the directory is written).

use std::path::{Path, PathBuf};

use crate::directory_lock::DirectoryLock;
use crate::error::CrawlError;

/// The lock of a crawl's output directory (`OUT/crawl.lock`), held while a crawl or recrawl
/// runs there; released when dropped or when the process dies, however it dies.
pub struct OutputLock {
    _lock: DirectoryLock,
}

impl OutputLock {
    /// The lock file in `OUT`.
    pub const FILE: &'static str = "crawl.lock";

    /// Takes the lock of `out`, creating the directory and the lock file if needed;
    /// [`CrawlError::OutputLocked`] at once when another process holds it.
    pub fn acquire(out: &Path) -> Result<OutputLock, CrawlError> {
        std::fs::create_dir_all(out).map_err(|e| CrawlError::io("cannot create", out, e))?;
        let path = Self::path(out);
        match DirectoryLock::try_acquire(&path)? {
            Some(lock) => Ok(OutputLock { _lock: lock }),
            None => Err(CrawlError::OutputLocked {
                out: out.to_path_buf(),
                lock: path,
            }),
        }
    }

    /// `OUT/crawl.lock`.
    pub fn path(out: &Path) -> PathBuf {
        out.join(Self::FILE)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_holder_is_refused_at_once_and_the_lock_is_free_again_after_a_drop() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out");
        let first = OutputLock::acquire(&out).expect("first");
        let started = std::time::Instant::now();
        let refused = OutputLock::acquire(&out).err().expect("refused");
        assert!(started.elapsed() < std::time::Duration::from_secs(1));
        assert!(refused.to_string().contains("lock"), "{refused}");
        assert!(refused.to_string().contains("is held"), "{refused}");
        drop(first);
        OutputLock::acquire(&out).expect("free again");
    }
}
