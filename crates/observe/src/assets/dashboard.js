// The dashboard: polls /api/state once a second and redraws. No framework, no build step.
"use strict";

const token = new URLSearchParams(location.search).get("token");
const withToken = (path) => token ? `${path}${path.includes("?") ? "&" : "?"}token=${encodeURIComponent(token)}` : path;
let crawlId = 0;

const TOTALS = [
  ["fetched", "fetched"], ["archived", "archived"], ["exact_duplicates", "exact duplicates"],
  ["near_duplicates", "near duplicates"], ["contained", "contained"], ["errors", "errors"],
  ["robots_disallowed", "robots disallowed"], ["soft_404", "soft 404s"],
  ["out_of_scope", "out of scope"], ["filtered", "filtered"], ["url_duplicates", "URL duplicates"],
  ["bytes_saved", "bytes saved"],
];
// The URL rules' cards: the report.json url_rules field and its label.
const URL_RULE_CARDS = [
  ["learned", "rules learned"], ["active", "rules active"], ["candidates", "rule candidates"],
  ["vetoed", "rules vetoed"], ["retractions", "rules retracted"], ["applications", "rule applications"],
  ["verifications", "verifications"], ["restored", "restored after retraction"],
  ["fetches_saved", "fetches saved"],
];
// The host table's count columns: the report.json field and its heading. The table's header is
// made from this list, so every row has a cell under each heading.
const HOST_COLUMNS = [
  ["fetched", "fetched"], ["archived", "archived"], ["exact_duplicates", "exact"],
  ["near_duplicates", "near"], ["contained", "contained"], ["not_modified", "not mod."],
  ["unchanged", "unchanged"], ["changed", "changed"], ["gone", "gone"],
  ["robots_disallowed", "robots"], ["soft_404", "soft 404"], ["out_of_scope", "out of scope"],
  ["filtered", "filtered"], ["url_duplicates", "url dup."], ["errors", "errors"],
  ["bytes_fetched", "bytes fetched"],
  ["bytes_saved", "bytes saved"],
];

function renderHostHeadings() {
  const row = document.createElement("tr");
  const heading = (text, title, className) => {
    const th = document.createElement("th");
    th.textContent = text;
    if (title) th.title = title;
    if (className) th.className = className;
    row.appendChild(th);
  };
  heading("host");
  for (const [key, text] of HOST_COLUMNS) heading(text, `report.json: ${key}`, "number");
  heading("next request", "seconds until the host's next request is allowed", "number");
  heading("pause", "retry-after, backoff or given up, and the time left");
  document.querySelector("#hosts thead").replaceChildren(row);
}

function cell(row, text, className) {
  const td = document.createElement("td");
  td.textContent = text === null || text === undefined ? "" : String(text);
  if (className) td.className = className;
  row.appendChild(td);
  return td;
}

// A cell of a column of numbers: right-aligned, as its heading (class "number" on both).
function numberCell(row, text) {
  return cell(row, text, "number");
}

// A cell whose long text ends in an ellipsis (the whole text in its tooltip).
function clippedCell(row, text) {
  const td = cell(row, "");
  const span = document.createElement("span");
  span.className = "clip";
  span.textContent = text || "";
  td.appendChild(span);
  td.title = text || "";
  return td;
}

// A URL cell whose link shows the URL's `why` (the link sets the page's #why=URL).
function urlCell(row, url) {
  const td = cell(row, "");
  td.appendChild(urlLink(url));
  td.title = url;
  return td;
}

function urlLink(url) {
  const link = document.createElement("a");
  link.className = "url";
  link.href = `#why=${encodeURIComponent(url)}`;
  link.textContent = url;
  return link;
}

function seconds(s) {
  if (s === null || s === undefined) return "";
  return s <= 0 ? "now" : `${s.toFixed(1)} s`;
}

function renderTotals(state) {
  const box = document.getElementById("totals");
  box.replaceChildren();
  const rate = state.elapsed > 0 && state.running ? state.total.fetched / state.elapsed : null;
  const cards = TOTALS.map(([key, label]) => [key, label, state.total[key]]);
  cards.push(["queued", "queued", state.queued], ["index_documents", "in index", state.index_documents],
    ["warc_bytes", "WARC bytes", state.warc_bytes]);
  if (rate !== null) cards.push(["rate", "pages/s (average)", rate.toFixed(1)]);
  for (const [key, label, value] of cards) {
    const card = document.createElement("div");
    card.className = "card";
    card.dataset.key = key;
    card.innerHTML = `<div class="value"></div><div class="label"></div>`;
    // null: a size not known, e.g. the index of a crawl that runs in another process.
    card.querySelector(".value").textContent = value === null ? "—" : value;
    card.querySelector(".label").textContent = label;
    box.appendChild(card);
  }
}

// The URL rules' figures (the section is hidden when crawl.url_rules is off).
function renderUrlRules(state) {
  const section = document.getElementById("url-rules-section");
  const box = document.getElementById("url-rules");
  box.replaceChildren();
  section.hidden = !state.url_rules;
  if (!state.url_rules) return;
  for (const [key, label] of URL_RULE_CARDS) {
    const card = document.createElement("div");
    card.className = "card";
    card.dataset.key = key;
    card.innerHTML = `<div class="value"></div><div class="label"></div>`;
    card.querySelector(".value").textContent = state.url_rules[key];
    card.querySelector(".label").textContent = label;
    box.appendChild(card);
  }
}

function renderHosts(state) {
  const body = document.querySelector("#hosts tbody");
  body.replaceChildren();
  for (const host of state.hosts) {
    const row = document.createElement("tr");
    cell(row, host.host);
    for (const [key] of HOST_COLUMNS) numberCell(row, host[key]);
    numberCell(row, seconds(host.next_allowed_in));
    cell(row, host.paused ? `${host.paused} ${seconds(host.paused_for)}` : "");
    body.appendChild(row);
  }
}

function renderRecent(state) {
  const body = document.querySelector("#recent tbody");
  body.replaceChildren();
  for (const d of state.recent) {
    const row = document.createElement("tr");
    cell(row, d.ts.replace(/^.*T/, "").replace("Z", ""));
    cell(row, d.decision, `d-${d.decision}`);
    numberCell(row, d.status);
    urlCell(row, d.url);
    clippedCell(row, d.duplicate_of);
    numberCell(row, d.similarity === null ? "" : d.similarity.toFixed(3));
    cell(row, d.detail, "detail");
    body.appendChild(row);
  }
}

// Decisions per second by their crawl-log times: point i counts those from start + i * step.
function renderChart(state) {
  const { start, step, points } = state.series;
  const rates = points.map((point, i) => {
    const rate = { second: i * step };
    for (const key of CHART_SERIES) rate[key] = point[key] / step;
    return rate;
  });
  const since = start === null ? "" : new Date(start * 1000).toISOString().slice(11, 19);
  const caption = start === null ? "no decisions yet"
    : `seconds since ${since} UTC, the first decision's second` +
      (step > 1 ? `; each point averages ${step} s` : "");
  drawChart(rates, caption);
}

const CHART_SERIES = ["fetched", "archived", "duplicates", "errors"];
const SVG = "http://www.w3.org/2000/svg";

function svgElement(parent, name, attributes, text) {
  const element = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, value);
  if (text !== undefined) element.textContent = text;
  parent.appendChild(element);
  return element;
}

// The smallest of 1, 2, 5 times a power of ten that is at least `value`.
function roundUp(value) {
  const power = 10 ** Math.floor(Math.log10(value));
  return [1, 2, 5, 10].map((m) => m * power).find((n) => n >= value);
}

// Time ticks from 0 to `span` seconds: at most 8, at a round step.
function timeTicks(span) {
  const step = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 21600, 43200, 86400]
    .find((s) => span / s <= 8) || Math.ceil(span / 8);
  const ticks = [];
  for (let second = 0; second <= span; second += step) ticks.push(second);
  return ticks;
}

// `rates`: [{second, fetched, archived, duplicates, errors}], second from the chart's start.
// Drawn as SVG: a line per series between a rate axis (0 to a round number) and a time axis.
function drawChart(rates, caption) {
  const svg = document.getElementById("chart");
  const [width, height, left, right, top, bottom] = [900, 180, 40, 14, 10, 22];
  svg.replaceChildren();
  document.getElementById("chart-caption").textContent = caption;
  if (!rates.length) return;
  const topRate = roundUp(Math.max(1, ...rates.flatMap((r) => CHART_SERIES.map((key) => r[key]))));
  const span = Math.max(1, ...rates.map((r) => r.second));
  const x = (second) => left + (width - left - right) * second / span;
  const y = (rate) => height - bottom - (height - top - bottom) * rate / topRate;
  for (const rate of [0, topRate / 2, topRate]) {
    const tick = svgElement(svg, "g", { class: "y-tick" });
    svgElement(tick, "line", { class: rate ? "grid" : "axis", x1: left, x2: width - right, y1: y(rate), y2: y(rate) });
    svgElement(tick, "text", { x: left - 4, y: y(rate) + 4, "text-anchor": "end" }, String(rate));
  }
  for (const second of timeTicks(span)) {
    const tick = svgElement(svg, "g", { class: "x-tick" });
    svgElement(tick, "line", { class: "axis", x1: x(second), x2: x(second), y1: y(0), y2: y(0) + 4 });
    svgElement(tick, "text", { x: x(second), y: height - 6, "text-anchor": "middle" }, `${second} s`);
  }
  for (const key of CHART_SERIES) {
    const points = rates.map((r) => `${x(r.second).toFixed(2)},${y(r[key]).toFixed(2)}`);
    svgElement(svg, "polyline", { class: key, points: points.join(" ") });
    // A line needs two points: markers show single points (and few points clearly).
    if (rates.length <= 120) {
      for (const r of rates) svgElement(svg, "circle", { class: key, cx: x(r.second).toFixed(2), cy: y(r[key]).toFixed(2), r: 2 });
    }
  }
}

// The clusters browser: a page of /api/clusters, searched by URL.
let clusterPage = 0;

async function loadClusters() {
  const box = document.getElementById("clusters");
  const q = document.getElementById("cluster-q").value;
  const response = await fetch(withToken(`api/clusters?crawl=${crawlId}&page=${clusterPage}&q=${encodeURIComponent(q)}`));
  if (!response.ok) { box.textContent = await response.text(); return; }
  const answer = await response.json();
  clusterPage = answer.page;
  document.getElementById("cluster-page").textContent =
    `page ${answer.page + 1} of ${answer.pages}: ${answer.matching} of ${answer.total_clusters} clusters`;
  box.replaceChildren();
  for (const cluster of answer.clusters) {
    const details = document.createElement("details");
    details.className = "cluster";
    details.open = answer.clusters.length <= 5;
    const summary = document.createElement("summary");
    summary.appendChild(urlLink(cluster.representative));
    summary.append(` — ${cluster.size} pages` +
      (cluster.min_similarity === null ? "" : `, similarity ≥ ${cluster.min_similarity.toFixed(3)}`));
    details.appendChild(summary);
    const table = document.createElement("table");
    table.innerHTML = "<thead><tr><th>url</th><th>decision</th><th>duplicate of</th><th class=\"number\">similarity</th></tr></thead>";
    const body = document.createElement("tbody");
    for (const member of cluster.members) {
      const row = document.createElement("tr");
      urlCell(row, member.url);
      cell(row, member.decision, `d-${member.decision}`);
      if (member.duplicate_of === cluster.representative) cell(row, "(the representative)");
      else urlCell(row, member.duplicate_of);
      numberCell(row, member.similarity === null ? "" : member.similarity.toFixed(3));
      body.appendChild(row);
    }
    table.appendChild(body);
    details.appendChild(table);
    if (cluster.contains && cluster.contains.length) {
      const list = document.createElement("ul");
      for (const url of cluster.contains) {
        const item = document.createElement("li");
        item.append("contains ", urlLink(url));
        list.appendChild(item);
      }
      details.appendChild(list);
    }
    box.appendChild(details);
  }
}

// The why panel: what `why OUT URL --json` says, for the URL in #why=URL.
async function showWhy() {
  const panel = document.getElementById("why-panel");
  const match = location.hash.match(/^#why=(.*)$/);
  if (!match) { panel.hidden = true; return; }
  const url = decodeURIComponent(match[1]);
  panel.hidden = false;
  document.getElementById("why-url").textContent = url;
  const summary = document.getElementById("why-summary");
  const json = document.getElementById("why-json");
  summary.replaceChildren();
  const response = await fetch(withToken(`api/why?crawl=${crawlId}&url=${encodeURIComponent(url)}`));
  if (!response.ok) { json.textContent = ""; summary.textContent = await response.text(); return; }
  const why = await response.json();
  json.textContent = JSON.stringify(why, null, 2);
  const add = (term, value) => {
    if (value === null || value === undefined || value === "" || (Array.isArray(value) && !value.length)) return;
    const dt = document.createElement("dt");
    dt.textContent = term;
    const dd = document.createElement("dd");
    dd.dataset.key = term;
    dd.textContent = Array.isArray(value) ? value.join(" → ") : String(value);
    summary.append(dt, dd);
  };
  add("decision", why.decision);
  add("reason", why.reason);
  add("status", why.status);
  add("error", why.error);
  add("note", why.note);
  if (why.duplicate) {
    add("duplicate of", why.duplicate.of);
    add("similarity", why.duplicate.similarity === null ? null : why.duplicate.similarity.toFixed(3));
    add("method", why.duplicate.method);
  }
  add("redirect chain", why.redirect_chain.length > 1 ? why.redirect_chain : null);
  add("found via", why.found_via);
  // The panel is at the top of the page: bring it into view after a click further down.
  window.scrollTo(0, 0);
}

async function loadChanges() {
  const response = await fetch(withToken(`api/changes?crawl=${crawlId}`));
  const summary = document.getElementById("changes-summary");
  const body = document.querySelector("#changes tbody");
  if (!response.ok) { summary.textContent = await response.text(); return; }
  const answer = await response.json();
  body.replaceChildren();
  if (answer.round <= 1) { summary.textContent = "Not a recrawl: one round so far."; return; }
  const counts = Object.entries(answer.counts).map(([k, v]) => `${v} ${k}`).join(", ");
  summary.textContent = `Round ${answer.round}: ${counts || "nothing yet"}.`;
  for (const change of answer.changes) {
    const row = document.createElement("tr");
    cell(row, change.change, `c-${change.change}`);
    urlCell(row, change.url);
    numberCell(row, change.change_similarity === null ? "" : change.change_similarity.toFixed(3));
    body.appendChild(row);
  }
}

function setUpPanels() {
  const params = new URLSearchParams(location.search);
  document.getElementById("cluster-q").value = params.get("q") || "";
  document.getElementById("cluster-search").onsubmit = (event) => {
    event.preventDefault();
    clusterPage = 0;
    loadClusters();
  };
  document.getElementById("cluster-previous").onclick = () => { clusterPage = Math.max(0, clusterPage - 1); loadClusters(); };
  document.getElementById("cluster-next").onclick = () => { clusterPage += 1; loadClusters(); };
  document.getElementById("why-close").onclick = () => { location.hash = ""; };
  window.addEventListener("hashchange", showWhy);
}

// Clusters and changes read the crawl's files: refreshed every few seconds, not every second.
let slowTicks = 0;
function slowRefresh() {
  if (++slowTicks % 5 === 0) {
    loadClusters();
    loadChanges();
  }
}

async function loadCrawls() {
  const response = await fetch(withToken("api/crawls"));
  const crawls = await response.json();
  const select = document.getElementById("crawl");
  select.replaceChildren();
  for (const crawl of crawls) {
    const option = document.createElement("option");
    option.value = crawl.id;
    option.textContent = crawl.name;
    select.appendChild(option);
  }
  select.onchange = () => { crawlId = Number(select.value); clusterPage = 0; refresh(); loadClusters(); loadChanges(); showWhy(); };
  document.getElementById("metrics-link").href = withToken("metrics");
}

async function refresh() {
  const status = document.getElementById("status");
  try {
    const response = await fetch(withToken(`api/state?crawl=${crawlId}`));
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    const state = await response.json();
    status.textContent = state.running ? "running" : "finished";
    status.className = `status ${state.running ? "running" : "finished"}`;
    document.body.dataset.running = state.running;
    renderTotals(state);
    renderUrlRules(state);
    renderHosts(state);
    renderRecent(state);
    renderChart(state);
  } catch (error) {
    status.textContent = `offline (${error.message})`;
    status.className = "status offline";
  }
}

setUpPanels();
renderHostHeadings();
loadCrawls().then(() => Promise.all([refresh(), loadClusters(), loadChanges(), showWhy()]));
setInterval(() => { refresh(); slowRefresh(); }, 1000);
