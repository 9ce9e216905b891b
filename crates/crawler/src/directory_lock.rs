//! [`DirectoryLock`]: an exclusive lock file in a directory, held while a process works there.

use std::fs::{File, OpenOptions, TryLockError};
use std::path::Path;

use crate::error::CrawlError;

/// An exclusive lock on a file, released when dropped or when the process dies, however it
/// dies (the kernel releases it).
pub(crate) struct DirectoryLock {
    _file: File,
}

impl DirectoryLock {
    /// Takes the lock on `path` (creating the file), or `Ok(None)` when another process holds
    /// it.
    pub(crate) fn try_acquire(path: &Path) -> Result<Option<DirectoryLock>, CrawlError> {
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(path)
            .map_err(|e| CrawlError::io("cannot open", path, e))?;
        match file.try_lock() {
            Ok(()) => Ok(Some(DirectoryLock { _file: file })),
            Err(TryLockError::WouldBlock) => Ok(None),
            Err(TryLockError::Error(error)) => Err(CrawlError::io("cannot lock", path, error)),
        }
    }
}
