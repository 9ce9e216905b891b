//! Helpers shared by the textprep tests.

use std::path::PathBuf;

/// The Rust docs shipped with the toolchain: real HTML from four templates.
pub fn rust_docs() -> PathBuf {
    let sysroot = std::process::Command::new("rustc")
        .args(["--print", "sysroot"])
        .output()
        .expect("rustc runs");
    PathBuf::from(String::from_utf8_lossy(&sysroot.stdout).trim()).join("share/doc/rust/html")
}

/// The HTML files under `dir`, sorted by path.
#[allow(dead_code)] // not every test file that shares these helpers walks a directory
pub fn html_files(dir: &std::path::Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("docs readable").flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "html") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}
