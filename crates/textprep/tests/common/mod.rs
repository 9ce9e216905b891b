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
