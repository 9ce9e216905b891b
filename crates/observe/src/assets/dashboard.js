// The dashboard: polls /api/state once a second and redraws. No framework, no build step.
"use strict";

const token = new URLSearchParams(location.search).get("token");
const withToken = (path) => token ? `${path}${path.includes("?") ? "&" : "?"}token=${encodeURIComponent(token)}` : path;
let crawlId = 0;

const COLORS = { fetched: "#333", archived: "#2a7d2a", duplicates: "#c77c00", errors: "#b22" };
const TOTALS = [
  ["fetched", "fetched"], ["archived", "archived"], ["exact_duplicates", "exact duplicates"],
  ["near_duplicates", "near duplicates"], ["contained", "contained"], ["errors", "errors"],
  ["robots_disallowed", "robots disallowed"], ["out_of_scope", "out of scope"],
  ["filtered", "filtered"], ["bytes_saved", "bytes saved"],
];
const HOST_COLUMNS = ["fetched", "archived", "exact_duplicates", "near_duplicates", "contained",
  "not_modified", "robots_disallowed", "out_of_scope", "filtered", "errors", "bytes_saved"];

function cell(row, text, className) {
  const td = document.createElement("td");
  td.textContent = text === null || text === undefined ? "" : String(text);
  if (className) td.className = className;
  row.appendChild(td);
  return td;
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
    card.querySelector(".value").textContent = value;
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
    for (const key of HOST_COLUMNS) cell(row, host[key]);
    cell(row, seconds(host.next_allowed_in));
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
    cell(row, d.status);
    cell(row, d.url).title = d.url;
    cell(row, d.duplicate_of).title = d.duplicate_of || "";
    cell(row, d.similarity === null ? "" : d.similarity.toFixed(3));
    cell(row, d.detail).title = d.detail || "";
    body.appendChild(row);
  }
}

// Rates between consecutive series points, drawn as lines.
function renderChart(state) {
  const canvas = document.getElementById("chart");
  const ctx = canvas.getContext("2d");
  ctx.clearRect(0, 0, canvas.width, canvas.height);
  const points = state.series;
  if (points.length < 2) return;
  const rates = [];
  for (let i = 1; i < points.length; i++) {
    const dt = points[i].t - points[i - 1].t || 1;
    const r = { t: points[i].t };
    for (const key of Object.keys(COLORS)) r[key] = (points[i][key] - points[i - 1][key]) / dt;
    rates.push(r);
  }
  const maxRate = Math.max(1, ...rates.map((r) => r.fetched));
  const t0 = points[0].t, t1 = points[points.length - 1].t || 1;
  const x = (t) => 30 + (canvas.width - 40) * (t - t0) / Math.max(1, t1 - t0);
  const y = (v) => canvas.height - 15 - (canvas.height - 25) * v / maxRate;
  ctx.fillStyle = "#666";
  ctx.font = "11px sans-serif";
  ctx.fillText(maxRate.toFixed(0), 2, 12);
  ctx.fillText("0", 2, canvas.height - 15);
  for (const [key, color] of Object.entries(COLORS)) {
    ctx.strokeStyle = color;
    ctx.beginPath();
    rates.forEach((r, i) => (i ? ctx.lineTo(x(r.t), y(r[key])) : ctx.moveTo(x(r.t), y(r[key]))));
    ctx.stroke();
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
  select.onchange = () => { crawlId = Number(select.value); refresh(); };
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
    renderHosts(state);
    renderRecent(state);
    renderChart(state);
  } catch (error) {
    status.textContent = `offline (${error.message})`;
    status.className = "status offline";
  }
}

loadCrawls().then(refresh);
setInterval(refresh, 1000);
