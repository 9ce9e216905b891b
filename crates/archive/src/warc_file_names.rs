//! WARC file names: `PREFIX-TIMESTAMP14-SERIAL-HOST.warc[.gz]`, the machine's host name made
//! safe for them, and the files a writer with a given prefix and host already wrote.

use std::fs;
use std::path::{Path, PathBuf};

use crate::error::ArchiveError;

/// Machine host name, made safe for a file name.
pub(crate) fn machine_host_name() -> String {
    let raw = ["/proc/sys/kernel/hostname", "/etc/hostname"]
        .iter()
        .find_map(|path| fs::read_to_string(path).ok())
        .or_else(|| std::env::var("HOSTNAME").ok())
        .or_else(|| std::env::var("COMPUTERNAME").ok())
        .unwrap_or_default();
    sanitize_host_name(raw.trim())
}

pub(crate) fn sanitize_host_name(raw: &str) -> String {
    let cleaned: String = raw
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' || c == '_' || c == '-' {
                c
            } else {
                '-'
            }
        })
        .collect();
    if cleaned.is_empty() {
        "localhost".to_string()
    } else {
        cleaned
    }
}

/// Parsed name of a file this writer wrote: `PREFIX-TIMESTAMP14-SERIAL-HOST.warc[.gz]`.
pub(crate) fn parse_file_serial(file_name: &str, prefix: &str, host: &str) -> Option<u64> {
    let rest = file_name.strip_prefix(prefix)?.strip_prefix('-')?;
    let rest = rest
        .strip_suffix(".warc.gz")
        .or_else(|| rest.strip_suffix(".warc"))?;
    let mut parts = rest.splitn(3, '-');
    let timestamp = parts.next()?;
    let serial = parts.next()?;
    let file_host = parts.next()?;
    let is_digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if timestamp.len() != 14 || !is_digits(timestamp) || !is_digits(serial) || file_host != host {
        return None;
    }
    serial.parse().ok()
}

/// Files in `dir` written by a writer with this prefix and host, with their serials.
pub(crate) fn existing_files(
    dir: &Path,
    prefix: &str,
    host: &str,
) -> Result<Vec<(u64, PathBuf)>, ArchiveError> {
    let entries = fs::read_dir(dir).map_err(|e| ArchiveError::io("list", dir, e))?;
    let mut found = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| ArchiveError::io("list", dir, e))?;
        let name = entry.file_name();
        if let Some(serial) = name
            .to_str()
            .and_then(|name| parse_file_serial(name, prefix, host))
        {
            found.push((serial, entry.path()));
        }
    }
    found.sort();
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names_round_trip() {
        assert_eq!(
            parse_file_serial(
                "dedupcrawl-20261122051500-00012-my-host.warc.gz",
                "dedupcrawl",
                "my-host"
            ),
            Some(12)
        );
        assert_eq!(
            parse_file_serial("a-b-20261122051500-00012-h.warc", "a", "h"),
            None
        );
        assert_eq!(
            parse_file_serial("a-20261122051500-00012-other.warc", "a", "h"),
            None
        );
        assert_eq!(sanitize_host_name("my host/1"), "my-host-1");
    }
}
