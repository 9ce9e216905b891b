//! The signals that stop a crawl: SIGINT (Ctrl-C) and SIGTERM. The first stops new requests
//! and gives the fetches in flight `crawl.interrupt_grace_seconds`; a second stops at once.

use serde::{Deserialize, Serialize};

use crate::error::CrawlError;

/// Which signal interrupted a crawl.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum StopSignal {
    #[serde(rename = "SIGINT")]
    Interrupt,
    #[serde(rename = "SIGTERM")]
    Terminate,
}

impl StopSignal {
    /// The signal's name, `SIGINT` or `SIGTERM`.
    pub fn name(self) -> &'static str {
        match self {
            StopSignal::Interrupt => "SIGINT",
            StopSignal::Terminate => "SIGTERM",
        }
    }

    /// The exit status of a process this signal stopped, as a shell reports it (128 + the
    /// signal's number): 130 for SIGINT, 143 for SIGTERM.
    pub fn exit_status(self) -> u8 {
        match self {
            StopSignal::Interrupt => 130,
            StopSignal::Terminate => 143,
        }
    }
}

/// Listens for SIGINT and SIGTERM from its creation on (their default action, ending the
/// process, no longer applies).
#[cfg(unix)]
pub(crate) struct StopSignals {
    interrupt: tokio::signal::unix::Signal,
    terminate: tokio::signal::unix::Signal,
}

#[cfg(unix)]
impl StopSignals {
    pub(crate) fn listen() -> Result<StopSignals, CrawlError> {
        use tokio::signal::unix::{SignalKind, signal};
        let listen = |kind| {
            signal(kind).map_err(|e| CrawlError::io("cannot listen for", "SIGINT and SIGTERM", e))
        };
        Ok(StopSignals {
            interrupt: listen(SignalKind::interrupt())?,
            terminate: listen(SignalKind::terminate())?,
        })
    }

    /// The next signal.
    pub(crate) async fn next(&mut self) -> StopSignal {
        tokio::select! {
            _ = self.interrupt.recv() => StopSignal::Interrupt,
            _ = self.terminate.recv() => StopSignal::Terminate,
        }
    }
}

/// Ctrl-C only where there are no Unix signals.
#[cfg(not(unix))]
pub(crate) struct StopSignals;

#[cfg(not(unix))]
impl StopSignals {
    pub(crate) fn listen() -> Result<StopSignals, CrawlError> {
        Ok(StopSignals)
    }

    pub(crate) async fn next(&mut self) -> StopSignal {
        let _ = tokio::signal::ctrl_c().await;
        StopSignal::Interrupt
    }
}
