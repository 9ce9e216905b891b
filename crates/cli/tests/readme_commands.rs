//! Every subcommand that `dedupcrawl --help` lists is documented in the README: it appears there
//! as `dedupcrawl NAME` or as `` `NAME` ``, NAME a whole word.

use std::process::Command;

/// The names under "Commands:" in `dedupcrawl --help`, without clap's own `help`.
fn subcommands() -> Vec<String> {
    let output = Command::new(env!("CARGO_BIN_EXE_dedupcrawl"))
        .arg("--help")
        .output()
        .expect("dedupcrawl --help runs");
    assert!(output.status.success(), "dedupcrawl --help: {output:?}");
    let help = String::from_utf8(output.stdout).expect("the help is UTF-8");
    let commands = help
        .split_once("Commands:\n")
        .unwrap_or_else(|| panic!("no \"Commands:\" in dedupcrawl --help:\n{help}"))
        .1;
    let names: Vec<String> = commands
        .lines()
        .take_while(|line| !line.trim().is_empty())
        // A command's line is indented by two spaces; a wrapped description by more.
        .filter(|line| line.starts_with("  ") && !line.starts_with("   "))
        .filter_map(|line| line.split_whitespace().next())
        .filter(|name| *name != "help")
        .map(str::to_string)
        .collect();
    assert!(
        names.len() >= 10,
        "too few commands read from dedupcrawl --help: {names:?}\n{help}"
    );
    names
}

/// Whether `text` has `needle` not followed by a character that continues a command's name.
fn has_word(text: &str, needle: &str) -> bool {
    text.match_indices(needle).any(|(at, _)| {
        text[at + needle.len()..]
            .chars()
            .next()
            .is_none_or(|next| !(next.is_alphanumeric() || next == '-' || next == '_'))
    })
}

#[test]
fn every_subcommand_of_the_help_is_in_the_readme() {
    let readme_path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md");
    let readme = std::fs::read_to_string(readme_path).expect("README.md reads");
    let missing: Vec<String> = subcommands()
        .into_iter()
        .filter(|name| {
            !has_word(&readme, &format!("dedupcrawl {name}"))
                && !readme.contains(&format!("`{name}`"))
        })
        .collect();
    assert!(
        missing.is_empty(),
        "subcommands of `dedupcrawl --help` not in README.md (as `dedupcrawl NAME` or `NAME` in \
         backquotes): {missing:?}"
    );
}
