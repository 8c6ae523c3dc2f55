// Unit tests of assets/report_download.js under node (issue 29): the report's query from a button's data-params,
// the same query as the load test's Python mirror (benchmarks/load_test.py report_query), a 200 saved under the
// Content-Disposition name, a refusal's line shown, and an upload left to the page's own callback.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const fs = require("fs");
const path = require("path");
const vm = require("vm");
const { execFileSync } = require("child_process");

const ROOT = path.join(__dirname, "..", "..");
const SOURCE = fs.readFileSync(path.join(ROOT, "assets", "report_download.js"), "utf8");

function load({ button, response, lang = "en" }) {
  const saved = [], fetched = [], props = [];
  const anchor = () => ({ click() { saved.push({ href: this.href, download: this.download }); }, remove() {}, style: {} });
  const document = {
    documentElement: { getAttribute: (name) => (name === "lang" ? lang : null) },
    getElementById: (id) => (button && id === button.id ? button : null),
    createElement: () => anchor(),
    body: { appendChild() {} },
  };
  const window = {
    dash_clientside: {
      no_update: "NO_UPDATE",
      callback_context: { triggered: [{ prop_id: `${button ? button.id : "x"}.n_clicks`, value: 1 }] },
      set_props: (id, p) => props.push([id, p]),
    },
  };
  const fetch = (url) => {
    fetched.push(url);
    return Promise.resolve(response);
  };
  const context = { window, document, fetch, URLSearchParams, URL: { createObjectURL: () => "blob:x", revokeObjectURL() {} },
    setTimeout: () => 0, Object, Array, String, Promise, decodeURIComponent };
  vm.createContext(context);
  vm.runInContext(SOURCE, context, { filename: "report_download.js" });
  return { window, saved, fetched, props };
}

const CASES = [
  { names: ["*", "cdf_grain", "table_ages", "table_grain"],
    values: [{ country: "LI,MT", k: "7", stat: "share_below" }, "census", "20-60", "5"] },
  { names: ["*"], values: ["?country=MT&k=10&coverage=0.9&per_district=1"] },
  { names: ["source", "columns", "bin.*", "", "missing", "population", "fraction", "trials", "model", "classes_rule", "k", "target"],
    values: ["adult", ["age", "sex"], ["5", null, ""], [{ type: "dataset-bin", column: "age" }, { type: "dataset-bin", column: "sex" },
      { type: "dataset-bin", column: "hours" }], "drop", null, "0,2", 3, "auto", "unique-shares", "5", "0.05"] },
];

test("the query holds each named value, merges the stores and pairs bin boxes with their columns", () => {
  const { window } = load({});
  const q = (c) => Array.from(window.anonset.reportQuery(c.names, c.values).entries());
  assert.deepEqual(q(CASES[0]), [["country", "LI,MT"], ["k", "7"], ["stat", "share_below"], ["cdf_grain", "census"],
    ["table_ages", "20-60"], ["table_grain", "5"], ["lang", "en"]]);
  assert.deepEqual(q(CASES[1]).slice(0, 4), [["country", "MT"], ["k", "10"], ["coverage", "0.9"], ["per_district", "1"]]);
  assert.deepEqual(q(CASES[2]), [["source", "adult"], ["columns", "age"], ["columns", "sex"], ["bin.age", "5"],
    ["missing", "drop"], ["fraction", "0,2"], ["trials", "3"], ["model", "auto"], ["classes_rule", "unique-shares"],
    ["k", "5"], ["target", "0.05"], ["lang", "en"]]);
});

test("the load test asks the same query as the browser", () => {
  const python = process.env.ANONSET_PYTHON || "python3";
  const script = "import json, sys; sys.path.insert(0, 'benchmarks'); from load_test import report_query; " +
    "print(json.dumps([report_query(c['names'], c['values']) for c in json.loads(sys.stdin.read())]))";
  const fromPython = JSON.parse(execFileSync(python, ["-c", script], { cwd: ROOT, input: JSON.stringify(CASES) }));
  const { window } = load({ lang: "" });
  CASES.forEach((c, i) => {
    assert.deepEqual(Array.from(window.anonset.reportQuery(c.names, c.values).entries()), fromPython[i]);
  });
});

function button(extra = {}) {
  return { id: "explore-report", dataset: Object.assign({ report: "/_reports/explorer", params: "*,cdf_grain",
    message: "explore-report-message", preparing: "Preparing the report…", failed: "No answer", local: "" }, extra) };
}

test("a 200 is saved under the Content-Disposition name, the status said while waiting", async () => {
  const response = { ok: true, status: 200, headers: { get: () => 'attachment; filename="anonset-report-explorer-MT.html"' },
    blob: () => Promise.resolve("BLOB") };
  const page = load({ button: button(), response, lang: "de" });
  const answer = await page.window.dash_clientside.anonset.downloadReport(1, { country: "MT" }, "5");
  assert.equal(page.fetched[0], "/_reports/explorer?country=MT&cdf_grain=5&lang=de");
  assert.equal(page.props[0][0], "explore-report-message");
  assert.equal(page.props[0][1].children.props.children, "Preparing the report…");
  assert.deepEqual(page.saved, [{ href: "blob:x", download: "anonset-report-explorer-MT.html" }]);
  assert.equal(answer, null);
});

test("a refusal's line goes to the report message", async () => {
  const response = { ok: false, status: 503, headers: { get: () => "text/plain; charset=utf-8" },
    text: () => Promise.resolve("This report is busy: anonset report …") };
  const page = load({ button: button(), response });
  const answer = await page.window.dash_clientside.anonset.downloadReport(1, { country: "MT" }, "5");
  assert.equal(answer.props.className, "error");
  assert.equal(answer.props.children, "This report is busy: anonset report …");
  assert.deepEqual(page.saved, []);
  // a proxy's or a crash's HTML page is never shown: the button's own sentence is
  const html = { ok: false, status: 502, headers: { get: () => "text/html" }, text: () => Promise.resolve("<h1>Bad</h1>") };
  const other = await load({ button: button(), response: html }).window.dash_clientside.anonset.downloadReport(1, {}, "5");
  assert.equal(other.props.children, "No answer");
});

test("an upload is the page's own callback's: nothing is fetched", () => {
  const page = load({ button: button({ params: "source", local: "source=upload" }), response: null });
  assert.equal(page.window.dash_clientside.anonset.downloadReport(1, "upload"), "NO_UPDATE");
  assert.deepEqual(page.fetched, []);
  assert.equal(page.window.dash_clientside.anonset.downloadReport(0, "nhanes"), "NO_UPDATE");
});
