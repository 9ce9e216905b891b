//! The frontier's error type, shared by every module and backend.

/// Storage or consistency errors of the frontier.
#[derive(Debug, thiserror::Error)]
pub enum FrontierError {
    #[error("frontier storage: {0}")]
    Storage(#[from] sled::Error),
    #[error("corrupt frontier record: {0}")]
    Corrupt(String),
    #[error("unknown or already completed lease {0}")]
    UnknownLease(u64),
}
