//! What a person sees on the dashboard, checked against the data: headless Chromium renders the
//! page (over the DevTools protocol, see `support/browser.rs`), the test reads every table cell
//! under its heading (the header cell at the same column index), the totals cards, the
//! alignment of each column's text with its heading, and the points of the pages-per-second
//! chart read off its axes, and compares them with `report.json`, the crawl log and the dedup
//! index.
//!
//! * A finished crawl under `dedupcrawl serve OUT`: every host row equals `report.json`, every
//!   card its total, "in index" the index's own count, the recent decisions the crawl log's
//!   last lines, the chart the crawl log's decisions per second.
//! * A running crawl under `dedupcrawl crawl --serve`: the page shows the crawl log up to the
//!   newest decision it lists (the observer sees lines in the order they are logged), so every
//!   count, row and chart point equals what the first lines of the finished crawl log give.
//!
//! Every mismatch is listed (not only the first); the screenshot of the checked page and what
//! was read from it go to `CARGO_TARGET_TMPDIR/dashboard_cells/TEST/`.

use crate::support;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use dedupcrawl_crawler::{CrawlConfig, CrawlReport, HostReport, LogLine, read_crawl_log};
use dedupcrawl_testsite::{TestSite, TestSiteOptions};
use serde::{Deserialize, Serialize};
use support::browser::{Tab, free_address, wait_for};

const CONFIG: &str = "[crawl]\nprogress = false\n\n[fetch]\nconnect_timeout = 1.0\n\
                      read_timeout = 1.0\ntotal_timeout = 2.0\nretry_backoff = 0.2\n\
                      max_retry_after = 5.0\nrobots_retry = 1.0\nmax_body_bytes = 2097152\n";

/// The viewport of the issue's screenshot.
const VIEWPORT: (u32, u32) = (1400, 1000);

/// Decisions the "Recent decisions" table lists (`dedupcrawl_observe::RECENT`).
const RECENT: usize = 100;

/// What the page shows, read in one script run (one rendering of one `/api/state`): each
/// cell's text as rendered (`innerText`), its computed `text-align`, and the horizontal extent
/// of its text on screen.
const READ_PAGE: &str = r##"(() => {
  if (document.readyState !== "complete" || !document.getElementById("status")) return null;
  const extent = (element) => {
    const range = document.createRange();
    range.selectNodeContents(element);
    const box = range.getBoundingClientRect();
    return box.width > 0 ? { left: box.left, right: box.right } : { left: null, right: null };
  };
  const cell = (element) => ({
    text: element.innerText.trim(),
    align: getComputedStyle(element).textAlign,
    ...extent(element),
  });
  const table = (element) => {
    return {
      headings: [...element.querySelectorAll("thead tr")].flatMap((tr) => [...tr.children]).map(cell),
      rows: [...element.querySelectorAll("tbody tr")].map((tr) => [...tr.children].map(cell)),
    };
  };
  const cards = [...document.querySelectorAll("#totals .card")].map((card) => ({
    label: card.querySelector(".label").innerText.trim(),
    value: card.querySelector(".value").innerText.trim(),
  }));
  const svg = document.querySelector("svg#chart");
  const ticks = (selector, attribute) => svg ? [...svg.querySelectorAll(selector)].map((tick) => ({
    at: Number(tick.querySelector("line").getAttribute(attribute)),
    label: tick.querySelector("text").textContent.trim(),
  })) : [];
  const chart = svg ? {
    lines: [...svg.querySelectorAll("polyline")].map((line) => ({
      series: line.getAttribute("class") || "",
      points: line.getAttribute("points") || "",
    })),
    y_ticks: ticks("g.y-tick", "y1"),
    x_ticks: ticks("g.x-tick", "x1"),
    caption: (document.getElementById("chart-caption") || { innerText: "" }).innerText.trim(),
  } : null;
  return {
    status: document.getElementById("status").innerText.trim(),
    cards,
    hosts: table(document.getElementById("hosts")),
    recent: table(document.getElementById("recent")),
    // Every table for the alignment of its columns (the clusters browser has one per cluster).
    tables: [...document.querySelectorAll("table")].map((element, number) => ({
      name: element.id || `${element.closest("[id]").id} table ${number + 1}`,
      ...table(element),
    })),
    chart,
  };
})()"##;

#[derive(Debug, Deserialize, Serialize)]
struct Seen {
    status: String,
    cards: Vec<Card>,
    hosts: Table,
    recent: Table,
    tables: Vec<NamedTable>,
    /// None: no `svg#chart` (nothing whose points can be read).
    chart: Option<Chart>,
}

#[derive(Debug, Deserialize, Serialize)]
struct Card {
    label: String,
    value: String,
}

#[derive(Debug, Deserialize, Serialize)]
struct Cell {
    text: String,
    align: String,
    /// Where the cell's text starts and ends on screen (None: no text).
    left: Option<f64>,
    right: Option<f64>,
}

#[derive(Debug, Deserialize, Serialize)]
struct Table {
    headings: Vec<Cell>,
    rows: Vec<Vec<Cell>>,
}

#[derive(Debug, Deserialize, Serialize)]
struct NamedTable {
    name: String,
    #[serde(flatten)]
    table: Table,
}

#[derive(Debug, Deserialize, Serialize)]
struct Chart {
    lines: Vec<ChartLine>,
    y_ticks: Vec<Tick>,
    x_ticks: Vec<Tick>,
    caption: String,
}

#[derive(Debug, Deserialize, Serialize)]
struct ChartLine {
    series: String,
    points: String,
}

/// An axis tick: where its line is (SVG units) and what its label says.
#[derive(Debug, Deserialize, Serialize)]
struct Tick {
    at: f64,
    label: String,
}

impl Seen {
    fn card(&self, label: &str) -> Option<&str> {
        self.cards
            .iter()
            .find(|card| card.label == label)
            .map(|card| card.value.as_str())
    }
}

/// A host count column: its heading, the `report.json` field it must show, how to read it.
type CountColumn = (&'static str, &'static str, fn(&HostReport) -> u64);

/// The heading of each count of a `report.json` host, as a person reads the table.
const HOST_COUNT_COLUMNS: [CountColumn; 16] = [
    ("fetched", "fetched", |r| r.fetched),
    ("archived", "archived", |r| r.archived),
    ("exact", "exact_duplicates", |r| r.exact_duplicates),
    ("near", "near_duplicates", |r| r.near_duplicates),
    ("contained", "contained", |r| r.contained),
    ("not mod.", "not_modified", |r| r.not_modified),
    ("unchanged", "unchanged", |r| r.unchanged),
    ("changed", "changed", |r| r.changed),
    ("gone", "gone", |r| r.gone),
    ("robots", "robots_disallowed", |r| r.robots_disallowed),
    ("soft 404", "soft_404", |r| r.soft_404),
    ("out of scope", "out_of_scope", |r| r.out_of_scope),
    ("filtered", "filtered", |r| r.filtered),
    ("errors", "errors", |r| r.errors),
    ("bytes fetched", "bytes_fetched", |r| r.bytes_fetched),
    ("bytes saved", "bytes_saved", |r| r.bytes_saved),
];

/// The host table's politeness columns (not in `report.json`).
const POLITENESS_COLUMNS: [&str; 2] = ["next request", "pause"];

/// The totals cards that show a `report.json` total.
const TOTAL_CARDS: [CountColumn; 11] = [
    ("fetched", "fetched", |r| r.fetched),
    ("archived", "archived", |r| r.archived),
    ("exact duplicates", "exact_duplicates", |r| {
        r.exact_duplicates
    }),
    ("near duplicates", "near_duplicates", |r| r.near_duplicates),
    ("contained", "contained", |r| r.contained),
    ("errors", "errors", |r| r.errors),
    ("robots disallowed", "robots_disallowed", |r| {
        r.robots_disallowed
    }),
    ("soft 404s", "soft_404", |r| r.soft_404),
    ("out of scope", "out_of_scope", |r| r.out_of_scope),
    ("filtered", "filtered", |r| r.filtered),
    ("bytes saved", "bytes_saved", |r| r.bytes_saved),
];

/// Which crawl-log lines a chart series counts.
type CountsLine = fn(&LogLine) -> bool;

/// The chart's series (the legend's names) and which crawl-log lines each counts.
const CHART_SERIES: [(&str, CountsLine); 4] = [
    ("fetched", |line| line.status.is_some()),
    ("archived", |line| line.decision.as_str() == "archived"),
    ("duplicates", |line| {
        matches!(
            line.decision.as_str(),
            "exact_duplicate" | "near_duplicate" | "contained"
        )
    }),
    ("errors", |line| line.decision.as_str() == "error"),
];

/// Everything that differs between the page and the data, in words.
#[derive(Default)]
struct Findings(Vec<String>);

impl Findings {
    fn add(&mut self, finding: String) {
        self.0.push(finding);
    }
}

/// What the page must show, from the data.
struct Expected<'a> {
    /// The counts of the decisions shown (`report.json`, or the first lines of a live crawl).
    report: &'a CrawlReport,
    /// The crawl-log lines shown, in log order.
    lines: &'a [LogLine],
    /// The dedup index's size: exactly (a finished crawl) or at most (live: sampled earlier).
    index_documents: IndexSize,
    /// A finished crawl's page has no politeness state, nothing queued, all WARC bytes.
    finished: Option<FinishedCrawl>,
}

enum IndexSize {
    Exactly(u64),
    AtMost(u64),
}

struct FinishedCrawl {
    warc_bytes: u64,
}

fn count_of(text: &str) -> Option<u64> {
    text.parse().ok()
}

/// Whitespace as `innerText` of a one-line cell renders it.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn check_status(seen: &Seen, expected: &Expected<'_>, findings: &mut Findings) {
    let status = if expected.finished.is_some() {
        "finished"
    } else {
        "running"
    };
    if seen.status != status {
        findings.add(format!(
            "status: shows {:?}, the crawl is {status}",
            seen.status
        ));
    }
}

fn check_cards(seen: &Seen, expected: &Expected<'_>, findings: &mut Findings) {
    let total = &expected.report.total;
    for (label, field, count) in TOTAL_CARDS {
        let want = count(total);
        match seen.card(label) {
            None => findings.add(format!(
                "card {label:?} (report.json total.{field}) missing"
            )),
            Some(value) if count_of(value) != Some(want) => findings.add(format!(
                "card {label:?}: shows {value:?}, report.json total.{field} is {want}"
            )),
            Some(_) => {}
        }
    }
    match (seen.card("in index"), &expected.index_documents) {
        (None, _) => findings.add("card \"in index\" missing".into()),
        (Some(value), IndexSize::Exactly(documents)) => {
            if count_of(value) != Some(*documents) {
                findings.add(format!(
                    "card \"in index\": shows {value:?}, the dedup index holds {documents} documents"
                ));
            }
        }
        (Some(value), IndexSize::AtMost(documents)) => {
            if count_of(value).is_none_or(|shown| shown > *documents) {
                findings.add(format!(
                    "card \"in index\": shows {value:?}, the dedup index holds {documents} at the end"
                ));
            }
        }
    }
    if let Some(finished) = &expected.finished {
        for (label, want) in [("queued", 0), ("WARC bytes", finished.warc_bytes)] {
            match seen.card(label) {
                Some(value) if count_of(value) == Some(want) => {}
                shown => findings.add(format!(
                    "card {label:?}: shows {shown:?}, the finished crawl has {want}"
                )),
            }
        }
    }
    let known: BTreeSet<&str> = TOTAL_CARDS
        .iter()
        .map(|(label, ..)| *label)
        .chain(["in index", "queued", "WARC bytes", "pages/s (average)"])
        .collect();
    for card in &seen.cards {
        if !known.contains(card.label.as_str()) {
            findings.add(format!(
                "card {:?} ({:?}) is none the test knows",
                card.label, card.value
            ));
        }
    }
}

/// Every host row, every cell read under the heading at its column index.
fn check_hosts(seen: &Seen, expected: &Expected<'_>, findings: &mut Findings) {
    let table = &seen.hosts;
    let headings: Vec<&str> = table.headings.iter().map(|h| h.text.as_str()).collect();
    if headings.first() != Some(&"host") {
        findings.add(format!(
            "hosts: the first heading is {:?}, not \"host\"",
            headings.first()
        ));
    }
    for (heading, field, _) in HOST_COUNT_COLUMNS {
        if !headings.contains(&heading) {
            findings.add(format!(
                "hosts: no column {heading:?} for report.json's {field}"
            ));
        }
    }
    for heading in headings.iter().skip(1) {
        let known = HOST_COUNT_COLUMNS.iter().any(|(h, ..)| h == heading)
            || POLITENESS_COLUMNS.contains(heading);
        if !known {
            findings.add(format!("hosts: heading {heading:?} is none the test knows"));
        }
    }
    let mut shown_hosts = BTreeSet::new();
    for row in &table.rows {
        let host = row.first().map_or("", |cell| cell.text.as_str());
        shown_hosts.insert(host.to_string());
        if row.len() != headings.len() {
            findings.add(format!(
                "hosts: row {host}: {} cells under {} headings",
                row.len(),
                headings.len()
            ));
        }
        let Some(report) = expected.report.hosts.get(host) else {
            findings.add(format!("hosts: row {host:?} is not a host of the data"));
            continue;
        };
        for (column, cell) in row.iter().enumerate().skip(1) {
            let Some(heading) = headings.get(column) else {
                findings.add(format!(
                    "hosts: row {host}: {:?} in column {} stands under no heading",
                    cell.text,
                    column + 1
                ));
                continue;
            };
            if let Some((_, field, count)) = HOST_COUNT_COLUMNS.iter().find(|(h, ..)| h == heading)
            {
                let want = count(report);
                if count_of(&cell.text) != Some(want) {
                    findings.add(format!(
                        "hosts: row {host}: under {heading:?} shows {:?}, report.json {field} is {want}",
                        cell.text
                    ));
                }
            } else if POLITENESS_COLUMNS.contains(heading) {
                check_politeness_cell(host, heading, &cell.text, expected, findings);
            }
        }
    }
    let want_hosts: BTreeSet<String> = expected.report.hosts.keys().cloned().collect();
    for missing in want_hosts.difference(&shown_hosts) {
        findings.add(format!("hosts: no row for {missing}"));
    }
}

/// A finished crawl has no politeness state to show; a running one shows "now", "N.N s" or a
/// pause with its time left.
fn check_politeness_cell(
    host: &str,
    heading: &str,
    text: &str,
    expected: &Expected<'_>,
    findings: &mut Findings,
) {
    let seconds = |text: &str| {
        text == "now"
            || text
                .strip_suffix(" s")
                .is_some_and(|number| number.parse::<f64>().is_ok())
    };
    let fits = if expected.finished.is_some() {
        text.is_empty()
    } else if heading == "next request" {
        text.is_empty() || seconds(text)
    } else {
        text.is_empty()
            || ["retry-after ", "backoff ", "given up "]
                .iter()
                .any(|reason| text.strip_prefix(reason).is_some_and(seconds))
    };
    if !fits {
        findings.add(format!(
            "hosts: row {host}: under {heading:?} shows {text:?}"
        ));
    }
}

/// The newest decisions first, each cell under its heading equal to the crawl-log line.
fn check_recent(seen: &Seen, expected: &Expected<'_>, findings: &mut Findings) {
    let table = &seen.recent;
    let headings: Vec<&str> = table.headings.iter().map(|h| h.text.as_str()).collect();
    let lines: Vec<&LogLine> = expected.lines.iter().rev().take(RECENT).collect();
    if table.rows.len() != lines.len() {
        findings.add(format!(
            "recent: {} rows, the crawl log's last {} lines",
            table.rows.len(),
            lines.len()
        ));
    }
    for (number, (row, line)) in table.rows.iter().zip(&lines).enumerate() {
        if row.len() != headings.len() {
            findings.add(format!(
                "recent: row {}: {} cells under {} headings",
                number + 1,
                row.len(),
                headings.len()
            ));
        }
        for (column, cell) in row.iter().enumerate() {
            let Some(heading) = headings.get(column) else {
                findings.add(format!(
                    "recent: row {}: {:?} stands under no heading",
                    number + 1,
                    cell.text
                ));
                continue;
            };
            let matches = match *heading {
                "similarity" => match (line.similarity, cell.text.as_str()) {
                    (None, text) => text.is_empty(),
                    (Some(similarity), text) => text
                        .parse::<f64>()
                        .is_ok_and(|shown| (shown - similarity).abs() <= 0.0005 + 1e-9),
                },
                "time" => {
                    let time = line.ts.split_once('T').map_or("", |(_, time)| time);
                    cell.text == time.trim_end_matches('Z')
                }
                "decision" => cell.text == line.decision.as_str(),
                "status" => cell.text == line.status.map(|s| s.to_string()).unwrap_or_default(),
                "url" => cell.text == line.url,
                "duplicate of" => cell.text == line.duplicate_of.clone().unwrap_or_default(),
                "detail" => {
                    let detail = line.error.as_ref().or(line.note.as_ref());
                    one_line(&cell.text) == one_line(detail.map_or("", |d| d.as_str()))
                }
                other => {
                    findings.add(format!("recent: heading {other:?} is none the test knows"));
                    true
                }
            };
            if !matches {
                findings.add(format!(
                    "recent: row {} ({}): under {heading:?} shows {:?}",
                    number + 1,
                    line.url,
                    cell.text
                ));
            }
        }
    }
}

/// Each column's text lines up with its heading: on the left edge for a left-aligned heading,
/// on the right edge for a right-aligned one (one finding per column; cells not rendered, such
/// as those of a closed cluster, are not seen).
fn check_alignment(name: &str, table: &Table, findings: &mut Findings) {
    let side = |align: &str| -> &'static str {
        match align {
            "end" | "right" => "right",
            other if other.contains("center") => "center",
            _ => "left",
        }
    };
    for (column, heading) in table.headings.iter().enumerate() {
        if heading.left.is_none() {
            continue;
        }
        let heading_side = side(&heading.align);
        let edge = |cell: &Cell| match heading_side {
            "right" => cell.right,
            _ => cell.left,
        };
        let offending: Vec<(usize, &Cell)> = table
            .rows
            .iter()
            .enumerate()
            .filter_map(|(number, row)| row.get(column).map(|cell| (number, cell)))
            .filter(|(_, cell)| !cell.text.is_empty() && cell.left.is_some())
            .filter(|(_, cell)| {
                side(&cell.align) != heading_side
                    || match (edge(cell), edge(heading)) {
                        (Some(cell), Some(heading)) => (cell - heading).abs() > 1.5,
                        _ => false,
                    }
            })
            .collect();
        if let Some((number, cell)) = offending.first() {
            findings.add(format!(
                "{name}: heading {:?} is {heading_side}-aligned (text at x {:?}..{:?}); {} of \
                 its cells are not, e.g. row {} {:?} {}-aligned at x {:?}..{:?}",
                heading.text,
                heading.left,
                heading.right,
                offending.len(),
                number + 1,
                cell.text,
                side(&cell.align),
                cell.left,
                cell.right
            ));
        }
    }
}

/// Decisions per second of the crawl log (seconds of `ts`, UTC), from the first decision's
/// second to the last one's, empty seconds included.
fn per_second(lines: &[LogLine]) -> (i64, Vec<[u64; 4]>) {
    let seconds: Vec<i64> = lines
        .iter()
        .map(|line| {
            chrono::DateTime::parse_from_rfc3339(&line.ts)
                .unwrap_or_else(|e| panic!("ts {:?}: {e}", line.ts))
                .timestamp()
        })
        .collect();
    let first = seconds.iter().copied().min().expect("decisions");
    let last = seconds.iter().copied().max().expect("decisions");
    let mut counts = vec![[0u64; 4]; usize::try_from(last - first + 1).expect("span")];
    for (line, second) in lines.iter().zip(&seconds) {
        let bucket = &mut counts[usize::try_from(second - first).expect("offset")];
        for (series, (_, counts_line)) in CHART_SERIES.iter().enumerate() {
            if counts_line(line) {
                bucket[series] += 1;
            }
        }
    }
    (first, counts)
}

/// A linear axis through its first and last tick (label value at the tick line's position).
fn axis(ticks: &[Tick]) -> Option<impl Fn(f64) -> f64> {
    let value = |tick: &Tick| {
        tick.label
            .trim_end_matches(" s")
            .replace(',', "")
            .parse::<f64>()
            .ok()
    };
    let (first, last) = (ticks.first()?, ticks.last()?);
    let (a, b) = (value(first)?, value(last)?);
    if (last.at - first.at).abs() < 1.0 || a == b {
        return None;
    }
    let (at_a, at_b) = (first.at, last.at);
    Some(move |at: f64| a + (at - at_a) * (b - a) / (at_b - at_a))
}

/// The chart's points, read off its axes, against the crawl log's decisions per second.
fn check_chart(seen: &Seen, expected: &Expected<'_>, findings: &mut Findings) {
    let Some(chart) = &seen.chart else {
        findings.add(
            "chart: no svg#chart on the page: no points a reader (or this test) can read".into(),
        );
        return;
    };
    let (first, counts) = per_second(expected.lines);
    let start = chrono::DateTime::from_timestamp(first, 0)
        .expect("time")
        .format("%H:%M:%S UTC")
        .to_string();
    if !chart.caption.contains(&start) {
        findings.add(format!(
            "chart: caption {:?} does not say it starts at the first decision's second, {start}",
            chart.caption
        ));
    }
    let (Some(rate_at), Some(second_at)) = (axis(&chart.y_ticks), axis(&chart.x_ticks)) else {
        findings.add(format!(
            "chart: axes unreadable (y ticks {:?}, x ticks {:?})",
            chart.y_ticks, chart.x_ticks
        ));
        return;
    };
    for (series, (name, _)) in CHART_SERIES.iter().enumerate() {
        let Some(line) = chart.lines.iter().find(|line| line.series == *name) else {
            findings.add(format!("chart: no line for {name:?}"));
            continue;
        };
        let mut shown = BTreeMap::new();
        for point in line.points.split_whitespace() {
            let Some((x, y)) = point.split_once(',') else {
                findings.add(format!("chart {name}: point {point:?} unreadable"));
                continue;
            };
            let (Ok(x), Ok(y)) = (x.parse::<f64>(), y.parse::<f64>()) else {
                findings.add(format!("chart {name}: point {point:?} unreadable"));
                continue;
            };
            let second = second_at(x);
            if (second - second.round()).abs() > 0.05 {
                findings.add(format!(
                    "chart {name}: a point at {second:.2} s, between two seconds"
                ));
            }
            shown.insert(second.round() as i64, rate_at(y));
        }
        let wanted: BTreeMap<i64, u64> = counts
            .iter()
            .enumerate()
            .map(|(offset, bucket)| (offset as i64, bucket[series]))
            .collect();
        let shown_seconds: BTreeSet<&i64> = shown.keys().collect();
        let wanted_seconds: BTreeSet<&i64> = wanted.keys().collect();
        if shown_seconds != wanted_seconds {
            findings.add(format!(
                "chart {name}: points at seconds {:?}..{:?} ({} points), the crawl log has \
                 decisions from second 0 to {} ({} seconds)",
                shown.keys().next(),
                shown.keys().last(),
                shown.len(),
                counts.len() - 1,
                counts.len()
            ));
        }
        for (second, want) in &wanted {
            if let Some(rate) = shown.get(second)
                && (rate - *want as f64).abs() > 0.05
            {
                findings.add(format!(
                    "chart {name}: second {second} shows {rate:.2}/s, the crawl log has {want}"
                ));
            }
        }
    }
}

fn check_page(seen: &Seen, expected: &Expected<'_>) -> Findings {
    let mut findings = Findings::default();
    check_status(seen, expected, &mut findings);
    check_cards(seen, expected, &mut findings);
    check_hosts(seen, expected, &mut findings);
    check_recent(seen, expected, &mut findings);
    for table in &seen.tables {
        check_alignment(&table.name, &table.table, &mut findings);
    }
    check_chart(seen, expected, &mut findings);
    findings
}

/// Reads the page until `ready` accepts what it shows (the scripts fetched and rendered the
/// state; null: the dashboard is not loaded yet) or `give_up` says waiting is pointless.
fn read_page_when(
    tab: &mut Tab,
    ready: impl Fn(&Seen) -> bool,
    mut give_up: impl FnMut() -> Option<String>,
) -> Seen {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let value = tab.evaluate(READ_PAGE);
        if !value.is_null() {
            let seen: Seen = serde_json::from_value(value.clone())
                .unwrap_or_else(|e| panic!("the page read: {e}: {value}"));
            if ready(&seen) {
                return seen;
            }
        }
        if let Some(reason) = give_up() {
            panic!("{reason}; the page showed: {value}");
        }
        assert!(
            Instant::now() < deadline,
            "the page never got ready: {value}"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// The test's output directory (kept after the run).
fn output_dir(test: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("dashboard_cells")
        .join(test);
    std::fs::create_dir_all(&dir).expect("output dir");
    dir
}

/// Keeps the screenshot of the checked page and what was read from it; fails with every
/// finding.
fn report_findings(test: &str, findings: Findings, seen: &Seen, screenshot: &[u8]) {
    let dir = output_dir(test);
    let picture = dir.join("dashboard.png");
    std::fs::write(&picture, screenshot).expect("write screenshot");
    std::fs::write(
        dir.join("seen.json"),
        serde_json::to_string_pretty(seen).expect("JSON"),
    )
    .expect("write seen.json");
    assert!(
        findings.0.is_empty(),
        "{} mismatches between the page and the data (screenshot {}, page read {}):\n{}",
        findings.0.len(),
        picture.display(),
        dir.join("seen.json").display(),
        findings.0.join("\n")
    );
    assert!(
        screenshot.starts_with(b"\x89PNG"),
        "the screenshot is no PNG"
    );
}

/// The documents in the crawl's dedup index, by the index itself (the crawl has ended).
fn index_documents(out: &Path) -> u64 {
    let mut config = CrawlConfig::load(&out.join("crawl.toml")).expect("the crawl's saved config");
    config.crawl.out = out.to_path_buf();
    dedupcrawl_crawler::open_crawl_index(&config)
        .expect("open the crawl's index")
        .stats()
        .expect("index stats")
        .documents
}

fn warc_bytes(out: &Path) -> u64 {
    dedupcrawl_crawler::warc_files(&out.join("warc"))
        .expect("WARC files")
        .iter()
        .map(|file| std::fs::metadata(file).expect("WARC file").len())
        .sum()
}

fn start_site(runtime: &tokio::runtime::Runtime, crawl_delay: f64) -> TestSite {
    runtime
        .block_on(TestSite::start_with(TestSiteOptions {
            crawl_delay: Some(crawl_delay),
            retry_after_secs: 1,
            slow_delay: Duration::from_secs(3),
            huge_bytes: 3 * 1024 * 1024,
            separate_ips: true,
        }))
        .expect("site starts")
}

fn crawl_command(dir: &Path, out: &Path, site: &TestSite) -> Command {
    let config = dir.join("crawl.toml");
    std::fs::write(&config, CONFIG).expect("config");
    let mut command = Command::new(env!("CARGO_BIN_EXE_dedupcrawl"));
    command
        .arg("crawl")
        .arg("--config")
        .arg(&config)
        .arg("--out")
        .arg(out)
        .args(["--delay", "0", "--seed"])
        .arg(site.main_url())
        .arg("--seed")
        .arg(site.host_b_url());
    command
}

struct KillOnDrop(std::process::Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn serve_shows_every_count_of_a_finished_crawl_under_its_heading() {
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let site = start_site(&runtime, 0.05);
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out");
    support::run(&mut crawl_command(dir.path(), &out, &site));
    let address = free_address();
    let mut serve = KillOnDrop(
        Command::new(env!("CARGO_BIN_EXE_dedupcrawl"))
            .arg("serve")
            .arg(&out)
            .arg("--listen")
            .arg(address.to_string())
            .spawn()
            .expect("start serve"),
    );
    wait_for(address, &mut serve.0);
    let mut tab = Tab::open(&format!("http://{address}/"), VIEWPORT.0, VIEWPORT.1);
    let seen = read_page_when(
        &mut tab,
        |seen| seen.status == "finished" && !seen.hosts.rows.is_empty(),
        || None,
    );
    let screenshot = tab.screenshot();
    drop(tab);

    let lines = read_crawl_log(&out.join("crawl.log.jsonl")).expect("crawl log");
    let report: CrawlReport =
        serde_json::from_slice(&std::fs::read(out.join("report.json")).expect("report"))
            .expect("report parses");
    let report_json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("report.json")).expect("report"))
            .expect("report parses");
    let documents = index_documents(&out);
    assert!(documents > 0, "the fixture crawl indexed pages");
    let expected = Expected {
        report: &report,
        lines: &lines,
        index_documents: IndexSize::Exactly(documents),
        finished: Some(FinishedCrawl {
            warc_bytes: warc_bytes(&out),
        }),
    };
    let mut findings = check_page(&seen, &expected);
    if report_json["index_documents"] != serde_json::json!(documents) {
        findings.add(format!(
            "report.json: index_documents is {}, the index holds {documents}",
            report_json["index_documents"]
        ));
    }
    report_findings(
        "serve_shows_every_count_of_a_finished_crawl_under_its_heading",
        findings,
        &seen,
        &screenshot,
    );
}

#[test]
fn crawl_serve_shows_the_crawl_log_so_far_under_its_headings() {
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    // Host A's crawl delay keeps the crawl running for several seconds.
    let site = start_site(&runtime, 0.1);
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out");
    let address = free_address();
    let mut crawl = KillOnDrop(
        crawl_command(dir.path(), &out, &site)
            .arg("--serve")
            .arg(address.to_string())
            .spawn()
            .expect("start crawl"),
    );
    wait_for(address, &mut crawl.0);
    let mut tab = Tab::open(&format!("http://{address}/"), VIEWPORT.0, VIEWPORT.1);
    // A page well into the crawl (it fetches 134 pages, host A's at most 10 a second): several
    // seconds of decisions, the index sampled since pages were archived.
    let seen = read_page_when(
        &mut tab,
        |seen| {
            seen.status == "running"
                && seen.card("fetched").and_then(count_of).unwrap_or(0) >= 40
                && seen.card("in index").and_then(count_of).unwrap_or(0) > 0
        },
        || {
            crawl
                .0
                .try_wait()
                .expect("crawl")
                .map(|status| format!("the crawl ended ({status}) before the page was read"))
        },
    );
    let screenshot = tab.screenshot();
    drop(tab);
    let status = crawl.0.wait().expect("crawl");
    assert!(status.success(), "crawl: {status}");

    let lines = read_crawl_log(&out.join("crawl.log.jsonl")).expect("crawl log");
    // The newest decision listed is the last line of the log the page shows.
    let url_column = seen
        .recent
        .headings
        .iter()
        .position(|heading| heading.text == "url")
        .expect("recent decisions have a url column");
    let newest = &seen.recent.rows[0][url_column].text;
    let shown = lines
        .iter()
        .position(|line| &line.url == newest)
        .unwrap_or_else(|| panic!("{newest} (newest on the page) is not in the crawl log"))
        + 1;
    let mut report = CrawlReport::default();
    for line in &lines[..shown] {
        report.add(line);
    }
    let expected = Expected {
        report: &report,
        lines: &lines[..shown],
        index_documents: IndexSize::AtMost(index_documents(&out)),
        finished: None,
    };
    let findings = check_page(&seen, &expected);
    report_findings(
        "crawl_serve_shows_the_crawl_log_so_far_under_its_headings",
        findings,
        &seen,
        &screenshot,
    );
}
