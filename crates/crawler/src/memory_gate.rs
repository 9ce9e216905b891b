//! `crawl.max_memory_mb`: the crawl loop asks this gate before it starts a fetch. Above the
//! high-water mark (90 % of the cap) no new fetch starts while others are in flight; the
//! fetches in flight finish and free their bodies, and leasing goes on once the resident set
//! is below the mark again (or nothing is in flight: one fetch at a time, so a crawl whose
//! resident set stays high still ends).
//!
//! Why this shape: what grows with hostile input is already bounded per fetch (body bytes
//! after decoding `fetch.max_body_bytes`, links per page, robots.txt 500 KiB, sitemaps by the
//! protocol's limits, `fetch.total_timeout`), and the frontier spills to disk. What is left
//! is how many of those bounded fetches are alive at once (`crawl.concurrency` × a body plus
//! its parse), so the gate bounds that number by the measured resident set instead of a
//! guess of bytes per fetch. The resident set comes from `/proc/self/status` (`VmRSS`): the
//! allocator's own view would miss sled's and the kernel's pages.

use std::time::{Duration, Instant};

/// How often the resident set is read while the loop leases (one small procfs read).
const SAMPLE_EVERY: Duration = Duration::from_millis(20);
/// While held, how long the loop waits before asking again (unless a fetch ends first).
pub(crate) const RECHECK_AFTER: Duration = Duration::from_millis(50);
/// The high-water mark, as a share of the cap: room for the fetches already in flight.
const HIGH_WATER: f64 = 0.9;

pub(crate) struct MemoryGate {
    cap_bytes: u64,
    high_water_bytes: u64,
    last_sample: Option<Instant>,
    resident_bytes: u64,
    holding: bool,
    /// How many times the gate closed (for the report note at the end).
    pub(crate) holds: u64,
}

impl MemoryGate {
    pub(crate) fn new(max_memory_mb: u64) -> MemoryGate {
        let cap_bytes = max_memory_mb.saturating_mul(1024 * 1024);
        MemoryGate {
            cap_bytes,
            high_water_bytes: (cap_bytes as f64 * HIGH_WATER) as u64,
            last_sample: None,
            resident_bytes: 0,
            holding: false,
            holds: 0,
        }
    }

    /// Whether a new fetch may start now, with `in_flight` fetches running.
    pub(crate) fn allows_new_fetch(&mut self, in_flight: usize) -> bool {
        let now = Instant::now();
        if self
            .last_sample
            .is_none_or(|at| now.duration_since(at) >= SAMPLE_EVERY)
        {
            self.last_sample = Some(now);
            if let Some(bytes) = resident_bytes() {
                self.resident_bytes = bytes;
            }
        }
        let above = self.resident_bytes >= self.high_water_bytes;
        if above != self.holding {
            self.holding = above;
            let mib = |bytes: u64| bytes / (1024 * 1024);
            if above {
                self.holds += 1;
                tracing::warn!(
                    "memory: resident set {} MiB is above 90 % of crawl.max_memory_mb = {} MiB: \
                     no new fetch starts until it falls ({in_flight} in flight)",
                    mib(self.resident_bytes),
                    mib(self.cap_bytes)
                );
            } else {
                tracing::info!(
                    "memory: resident set {} MiB is below the high-water mark again: fetching resumes",
                    mib(self.resident_bytes)
                );
            }
        }
        !above || in_flight == 0
    }
}

/// This process's resident set in bytes (`VmRSS`), or `None` where procfs is missing.
pub(crate) fn resident_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status_field_bytes(&status, "VmRSS:")
}

/// A `kB` field of `/proc/PID/status`, in bytes.
pub(crate) fn status_field_bytes(status: &str, field: &str) -> Option<u64> {
    let line = status.lines().find(|l| l.starts_with(field))?;
    let kib: u64 = line[field.len()..]
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    Some(kib * 1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_kib_fields() {
        let status = "Name:\tx\nVmHWM:\t  204800 kB\nVmRSS:\t  102400 kB\n";
        assert_eq!(
            status_field_bytes(status, "VmRSS:"),
            Some(100 * 1024 * 1024)
        );
        assert_eq!(
            status_field_bytes(status, "VmHWM:"),
            Some(200 * 1024 * 1024)
        );
        assert_eq!(status_field_bytes(status, "VmSwap:"), None);
    }

    #[test]
    fn holds_above_high_water_unless_nothing_is_in_flight() {
        // A cap far below any real process: always above the mark.
        let mut gate = MemoryGate::new(1);
        assert!(!gate.allows_new_fetch(3));
        assert!(gate.allows_new_fetch(0), "one fetch at a time still runs");
        assert_eq!(gate.holds, 1);
        let mut roomy = MemoryGate::new(1024 * 1024);
        assert!(roomy.allows_new_fetch(100));
        assert_eq!(roomy.holds, 0);
    }
}
