//! `dedupcrawl why OUT URL --json` for the decision kinds a first crawl of the fixture site
//! (`why_decisions.rs`) does not produce: `contained` and `out_of_scope` in round 1, and the
//! recrawl kinds `not_modified`, `unchanged`, `gone` and a changed page (`archived` with its
//! previous digest) in round 2. The dashboard's `/api/changes` of that crawl equals what
//! `changes OUT` prints.

use crate::support;

use std::net::TcpListener;
use std::process::Command;

use dedupcrawl_testsite::{MutatingSite, Validation, text};
use serde_json::Value;

use support::{http_get, run, why};

#[test]
fn why_explains_contained_out_of_scope_and_the_recrawl_kinds() {
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let site = runtime.block_on(MutatingSite::start()).expect("site");
    let elsewhere = "http://127.0.0.2:9/elsewhere";
    site.put(
        "/",
        "Home",
        &text(99, 80),
        &[
            "/p/etag",
            "/p/same",
            "/p/gone",
            "/p/changed",
            "/big",
            elsewhere,
        ],
        Validation::StrongEtag,
    );
    site.put(
        "/p/etag",
        "Etag",
        &text(1, 150),
        &["/"],
        Validation::StrongEtag,
    );
    site.put("/p/same", "Same", &text(2, 150), &["/"], Validation::None);
    site.put(
        "/p/gone",
        "Gone",
        &text(3, 150),
        &["/"],
        Validation::StrongEtag,
    );
    site.put(
        "/p/changed",
        "Changed",
        &text(4, 150),
        &["/"],
        Validation::None,
    );
    // /part is only linked from /big: fetched after it, its text is /big's first paragraph.
    let part = text(5, 200);
    site.put(
        "/big",
        "Big",
        &format!("{part}</p><p>{}", text(6, 200)),
        &["/part"],
        Validation::StrongEtag,
    );
    site.put("/part", "Part", &part, &[], Validation::StrongEtag);
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out");
    // Contained pages keep their text (metadata records) so `why` can show the shared blocks.
    let config = dir.path().join("crawl.toml");
    std::fs::write(&config, "[archive]\nnear_duplicates = \"metadata\"\n").expect("config");
    run(Command::new(env!("CARGO_BIN_EXE_dedupcrawl"))
        .arg("crawl")
        .arg("--config")
        .arg(&config)
        .args(["--delay", "0", "--seed", &site.url("/"), "--out"])
        .arg(&out));

    let mut failures = Vec::new();
    let mut check = |url: &str, kind: &str, what: &str, ok: &dyn Fn(&Value) -> bool| {
        let answer = why(&out, url);
        if answer["decision"] != kind || !ok(&answer) {
            failures.push(format!("{url} ({kind}): {what}: {answer:#}"));
        }
    };
    let reason_has = |phrase: &'static str| {
        move |answer: &Value| {
            answer["reason"]
                .as_str()
                .is_some_and(|r| r.contains(phrase))
        }
    };
    check(
        elsewhere,
        "out_of_scope",
        "the scope rule is named",
        &|answer: &Value| {
            answer["note"]
                .as_str()
                .is_some_and(|note| answer["reason"].as_str().is_some_and(|r| r.contains(note)))
                && answer["found_via"][0] == site.url("/").as_str()
        },
    );
    let big = site.url("/big");
    check(
        &site.url("/part"),
        "contained",
        "contained in /big by the containment mechanism, shared blocks shown",
        &|answer: &Value| {
            answer["duplicate"]["of"] == big.as_str()
                && answer["duplicate"]["mechanism"] == "containment"
                && answer["explanation"]["verified"]
                    .as_f64()
                    .is_some_and(|c| c >= 0.9)
                && answer["duplicate"]["compared"]["shared"]
                    .as_array()
                    .is_some_and(|shared| !shared.is_empty())
        },
    );
    // Round 2 (`why` explains a URL's latest line).
    site.put(
        "/p/changed",
        "Changed",
        &text(7, 150),
        &["/"],
        Validation::None,
    );
    site.delete("/p/gone");
    run(Command::new(env!("CARGO_BIN_EXE_dedupcrawl"))
        .args(["recrawl", "--all"])
        .arg(&out));

    check(
        &site.url("/p/etag"),
        "not_modified",
        "304",
        &reason_has("304 Not Modified"),
    );
    check(
        &site.url("/p/same"),
        "unchanged",
        "same payload as before",
        &reason_has("previous version"),
    );
    check(&site.url("/p/gone"), "gone", "404", &reason_has("gone"));
    check(
        &site.url("/p/changed"),
        "archived",
        "archived again, with the round-1 line as earlier",
        &|answer: &Value| {
            answer["earlier"]
                .as_array()
                .is_some_and(|earlier| earlier.iter().any(|l| l["round"] == 1))
        },
    );
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));

    // The dashboard's changes panel: what `changes OUT` prints.
    let printed = run(Command::new(env!("CARGO_BIN_EXE_dedupcrawl"))
        .arg("changes")
        .arg(&out));
    let expected: Vec<Value> = support::json_lines(&printed);
    assert!(
        expected.iter().any(|c| c["change"] == "changed")
            && expected.iter().any(|c| c["change"] == "gone"),
        "{expected:?}"
    );
    let address = TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a free port");
    let mut serve = Command::new(env!("CARGO_BIN_EXE_dedupcrawl"))
        .arg("serve")
        .arg(&out)
        .arg("--listen")
        .arg(address.to_string())
        .spawn()
        .expect("start serve");
    let answer = http_get(address, "/api/changes?crawl=0");
    let _ = serve.kill();
    let _ = serve.wait();
    let answer: Value = serde_json::from_str(&answer).expect("JSON");
    assert_eq!(answer["round"], 2);
    assert_eq!(answer["changes"], Value::Array(expected));
}
