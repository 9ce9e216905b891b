//! The memory of a browser: its main process and every process under it (renderers, GPU and
//! utility processes), read from `/proc`. Each process counts its proportional set size
//! (`Pss` of `smaps_rollup`: a page shared by n processes counts 1/n in each), since the
//! processes share most of their pages and their resident sizes summed count those n times.

use std::collections::HashMap;

/// Proportional MiB of process `pid` and its descendants (0 when unknown).
pub(crate) fn resident_mb(pid: Option<u32>) -> u64 {
    let Some(pid) = pid else {
        return 0;
    };
    let processes = processes();
    let mut total_kib = 0;
    let mut stack = vec![pid];
    while let Some(current) = stack.pop() {
        if let Some((_, resident_pages)) = processes.get(&current) {
            total_kib += proportional_kib(current).unwrap_or(resident_pages * page_size() / 1024);
        }
        stack.extend(
            processes
                .iter()
                .filter(|(_, (parent, _))| *parent == current)
                .map(|(child, _)| *child),
        );
    }
    total_kib / 1024
}

/// `Pss` of a process, KiB.
fn proportional_kib(pid: u32) -> Option<u64> {
    let rollup = std::fs::read_to_string(format!("/proc/{pid}/smaps_rollup")).ok()?;
    let line = rollup.lines().find(|line| line.starts_with("Pss:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Every process: its parent and resident pages.
fn processes() -> HashMap<u32, (u32, u64)> {
    let mut found = HashMap::new();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return found;
    };
    for entry in entries.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        // The command name (field 2) is in parentheses and may hold spaces.
        let Some(after_name) = stat.rfind(')').map(|end| &stat[end + 1..]) else {
            continue;
        };
        let fields: Vec<&str> = after_name.split_whitespace().collect();
        // After the name: state (3), ppid (4) ... rss (24), so indexes 1 and 21 here.
        let parent = fields.get(1).and_then(|f| f.parse().ok());
        let rss = fields.get(21).and_then(|f| f.parse().ok());
        if let (Some(parent), Some(rss)) = (parent, rss) {
            found.insert(pid, (parent, rss));
        }
    }
    found
}

fn page_size() -> u64 {
    // SAFETY: sysconf only reads a configuration value.
    let size = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    u64::try_from(size).unwrap_or(4096)
}
