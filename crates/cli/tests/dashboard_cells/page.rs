//! What the dashboard shows, read from the rendered page in one script run.

use super::*;

/// What the page shows, read in one script run (one rendering of one `/api/state`): each
/// cell's text as rendered (`innerText`), its computed `text-align`, and the horizontal extent
/// of its text on screen.
pub(super) const READ_PAGE: &str = r##"(() => {
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
  const cardsOf = (selector) => [...document.querySelectorAll(selector)].map((card) => ({
    label: card.querySelector(".label").innerText.trim(),
    value: card.querySelector(".value").innerText.trim(),
  }));
  const cards = cardsOf("#totals .card");
  const url_rule_cards = cardsOf("#url-rules .card");
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
    url_rule_cards,
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
pub(super) struct Seen {
    pub(super) status: String,
    pub(super) cards: Vec<Card>,
    /// The URL rules' cards (none when `crawl.url_rules` is off).
    pub(super) url_rule_cards: Vec<Card>,
    pub(super) hosts: Table,
    pub(super) recent: Table,
    pub(super) tables: Vec<NamedTable>,
    /// None: no `svg#chart` (nothing whose points can be read).
    pub(super) chart: Option<Chart>,
}

#[derive(Debug, Deserialize, Serialize)]
pub(super) struct Card {
    pub(super) label: String,
    pub(super) value: String,
}

#[derive(Debug, Deserialize, Serialize)]
pub(super) struct Cell {
    pub(super) text: String,
    pub(super) align: String,
    /// Where the cell's text starts and ends on screen (None: no text).
    pub(super) left: Option<f64>,
    pub(super) right: Option<f64>,
}

#[derive(Debug, Deserialize, Serialize)]
pub(super) struct Table {
    pub(super) headings: Vec<Cell>,
    pub(super) rows: Vec<Vec<Cell>>,
}

#[derive(Debug, Deserialize, Serialize)]
pub(super) struct NamedTable {
    pub(super) name: String,
    #[serde(flatten)]
    pub(super) table: Table,
}

#[derive(Debug, Deserialize, Serialize)]
pub(super) struct Chart {
    pub(super) lines: Vec<ChartLine>,
    pub(super) y_ticks: Vec<Tick>,
    pub(super) x_ticks: Vec<Tick>,
    pub(super) caption: String,
}

#[derive(Debug, Deserialize, Serialize)]
pub(super) struct ChartLine {
    pub(super) series: String,
    pub(super) points: String,
}

/// An axis tick: where its line is (SVG units) and what its label says.
#[derive(Debug, Deserialize, Serialize)]
pub(super) struct Tick {
    pub(super) at: f64,
    pub(super) label: String,
}

impl Seen {
    pub(super) fn card(&self, label: &str) -> Option<&str> {
        self.cards
            .iter()
            .find(|card| card.label == label)
            .map(|card| card.value.as_str())
    }
}

/// Reads the page until `ready` accepts what it shows (the scripts fetched and rendered the
/// state; null: the dashboard is not loaded yet) or `give_up` says waiting is pointless.
pub(super) fn read_page_when(
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
