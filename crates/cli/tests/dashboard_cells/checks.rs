//! What the page must show, from the data, and every difference found, in words.

use super::*;

/// A host count column: its heading, the `report.json` field it must show, how to read it.
pub(super) type CountColumn = (&'static str, &'static str, fn(&HostReport) -> u64);

/// The heading of each count of a `report.json` host, as a person reads the table.
pub(super) const HOST_COUNT_COLUMNS: [CountColumn; 17] = [
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
    ("url dup.", "url_duplicates", |r| r.url_duplicates),
    ("errors", "errors", |r| r.errors),
    ("bytes fetched", "bytes_fetched", |r| r.bytes_fetched),
    ("bytes saved", "bytes_saved", |r| r.bytes_saved),
];

/// The host table's politeness columns (not in `report.json`).
pub(super) const POLITENESS_COLUMNS: [&str; 2] = ["next request", "pause"];

/// The totals cards that show a `report.json` total.
pub(super) const TOTAL_CARDS: [CountColumn; 12] = [
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
    ("URL duplicates", "url_duplicates", |r| r.url_duplicates),
    ("bytes saved", "bytes_saved", |r| r.bytes_saved),
];

/// Which crawl-log lines a chart series counts.
pub(super) type CountsLine = fn(&LogLine) -> bool;

/// The chart's series (the legend's names) and which crawl-log lines each counts.
pub(super) const CHART_SERIES: [(&str, CountsLine); 4] = [
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
pub(super) struct Findings(pub(super) Vec<String>);

impl Findings {
    pub(super) fn add(&mut self, finding: String) {
        self.0.push(finding);
    }
}

/// What the page must show, from the data.
pub(super) struct Expected<'a> {
    /// The counts of the decisions shown (`report.json`, or the first lines of a live crawl).
    pub(super) report: &'a CrawlReport,
    /// The crawl-log lines shown, in log order.
    pub(super) lines: &'a [LogLine],
    /// The dedup index's size: exactly (a finished crawl) or at most (live: sampled earlier).
    pub(super) index_documents: IndexSize,
    /// A finished crawl's page has no politeness state, nothing queued, all WARC bytes.
    pub(super) finished: Option<FinishedCrawl>,
}

pub(super) enum IndexSize {
    Exactly(u64),
    AtMost(u64),
}

pub(super) struct FinishedCrawl {
    pub(super) warc_bytes: u64,
}

pub(super) fn count_of(text: &str) -> Option<u64> {
    text.parse().ok()
}

/// Whitespace as `innerText` of a one-line cell renders it.
pub(super) fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

pub(super) fn check_status(seen: &Seen, expected: &Expected<'_>, findings: &mut Findings) {
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

pub(super) fn check_cards(seen: &Seen, expected: &Expected<'_>, findings: &mut Findings) {
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
pub(super) fn check_hosts(seen: &Seen, expected: &Expected<'_>, findings: &mut Findings) {
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
pub(super) fn check_politeness_cell(
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
pub(super) fn check_recent(seen: &Seen, expected: &Expected<'_>, findings: &mut Findings) {
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
pub(super) fn check_alignment(name: &str, table: &Table, findings: &mut Findings) {
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
pub(super) fn per_second(lines: &[LogLine]) -> (i64, Vec<[u64; 4]>) {
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
pub(super) fn axis(ticks: &[Tick]) -> Option<impl Fn(f64) -> f64> {
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
pub(super) fn check_chart(seen: &Seen, expected: &Expected<'_>, findings: &mut Findings) {
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

/// The URL rules' cards, by label, and the `report.json` `url_rules` field each shows.
pub(super) const URL_RULE_CARDS: [(&str, &str); 9] = [
    ("rules learned", "learned"),
    ("rules active", "active"),
    ("rule candidates", "candidates"),
    ("rules vetoed", "vetoed"),
    ("rules retracted", "retractions"),
    ("rule applications", "applications"),
    ("verifications", "verifications"),
    ("restored after retraction", "restored"),
    ("fetches saved", "fetches_saved"),
];

/// A finished crawl shows its `report.json` `url_rules`, one card each, and none when the
/// report has none (rules off). A live crawl's figures are a sample: not checked.
pub(super) fn check_url_rule_cards(seen: &Seen, expected: &Expected<'_>, findings: &mut Findings) {
    if expected.finished.is_none() {
        return;
    }
    let Some(figures) = &expected.report.url_rules else {
        if !seen.url_rule_cards.is_empty() {
            findings.add(format!(
                "URL rules cards shown for a crawl without URL rules: {:?}",
                seen.url_rule_cards
            ));
        }
        return;
    };
    let named: BTreeMap<&str, u64> = figures.named().into_iter().collect();
    let labels: Vec<&str> = seen
        .url_rule_cards
        .iter()
        .map(|c| c.label.as_str())
        .collect();
    let want: Vec<&str> = URL_RULE_CARDS.iter().map(|(label, _)| *label).collect();
    if labels != want {
        findings.add(format!("URL rules cards: {labels:?}, want {want:?}"));
    }
    for (label, field) in URL_RULE_CARDS {
        let shown = seen.url_rule_cards.iter().find(|c| c.label == label);
        if shown.map(|c| count_of(&c.value)) != Some(named.get(field).copied()) {
            findings.add(format!(
                "URL rules card {label:?}: shows {shown:?}, report.json url_rules.{field} is {:?}",
                named.get(field)
            ));
        }
    }
}

pub(super) fn check_page(seen: &Seen, expected: &Expected<'_>) -> Findings {
    let mut findings = Findings::default();
    check_status(seen, expected, &mut findings);
    check_cards(seen, expected, &mut findings);
    check_url_rule_cards(seen, expected, &mut findings);
    check_hosts(seen, expected, &mut findings);
    check_recent(seen, expected, &mut findings);
    for table in &seen.tables {
        check_alignment(&table.name, &table.table, &mut findings);
    }
    check_chart(seen, expected, &mut findings);
    findings
}
