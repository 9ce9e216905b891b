//! The resident memory of a browser: its main process and every process under it (renderers,
//! GPU and utility processes), read from `/proc`.

use std::collections::HashMap;

/// Resident MiB of process `pid` and its descendants (0 when unknown).
pub(crate) fn resident_mb(pid: Option<u32>) -> u64 {
    let Some(pid) = pid else {
        return 0;
    };
    let processes = processes();
    let mut total_pages = 0;
    let mut stack = vec![pid];
    while let Some(current) = stack.pop() {
        if let Some((_, pages)) = processes.get(&current) {
            total_pages += pages;
        }
        stack.extend(
            processes
                .iter()
                .filter(|(_, (parent, _))| *parent == current)
                .map(|(child, _)| *child),
        );
    }
    total_pages * page_size() / (1024 * 1024)
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
