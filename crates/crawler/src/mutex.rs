//! Mutexes whose poisoning is harmless here.

use std::sync::{Mutex, MutexGuard};

/// Locks a mutex; a poisoned one is used as it is (every holder leaves the data consistent).
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}
