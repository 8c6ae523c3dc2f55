// Unit tests of the personal page's clientside callbacks (assets/personal_page.js) under node, with a
// stand-in for the browser (tests/js/harness.js): the named field contract (views/personal.py FIELDS,
// CALLBACKS, shipped in the page config), parsing, the answer on DE's public table, and the address bar
// (assets/url_sync.js): a person's answers only ever go into the #fragment, never into the query.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const { fixtures, browser, positional, named, NO } = require("./harness");
const fs = require("fs");
const path = require("path");

const ANSWER = { district: "09162", sex: "female", ages: ["40\u201345"], units: "metric", hcm: "172", wkg: "70",
  hft: null, hin: null, wlb: null, aux: [], auxName: null, auxPct: null, users: null, ks: [10, 100],
  presenter: false, country: "DE", hw: 5, ww: 5, model: "v2", sr: [] };
const KEY = "DE|5|5|v2|0";

function withTable() {
  const b = browser("http://127.0.0.1/?country=DE");
  b.P.tables[KEY] = b.E.prepare(fixtures().table);
  b.E.useText(fixtures().config.text);  // as every callback does first (the page's args())
  return b;
}

function compute(b, answers, status) {
  const config = fixtures().config;
  const values = Object.assign({ tableStatus: status === undefined ? { key: KEY, ok: true } : status }, ANSWER, answers);
  return named(config, "compute", b.me.compute(...positional(config, "compute", values)));
}

/** deepEqual across realms: the page's scripts run in their own context (their arrays are not this realm's). */
const same = (actual, expected, message) => assert.deepEqual(JSON.parse(JSON.stringify(actual)), expected, message);

const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

test("the contract names every argument and output once, and the fragment holds only answers", () => {
  const { config } = fixtures();
  for (const [name, c] of Object.entries(config.fields)) {
    assert.equal(new Set(c.args).size, c.args.length, name);
    assert.equal(new Set(c.outputs).size, c.outputs.length, name);
  }
  same(config.fragment, ["district", "sex", "ages", "units", "hcm", "hft", "hin", "wkg", "wlb", "hw", "ww",
    "aux", "model", "sr"]);
  same(config.fields.answersFromFragment.outputs, [...config.fragment, "notice"]);
  assert.ok(!config.fragment.includes("country"));
});

test("outputs are placed by name; an unknown name is an error, a missing one no_update", () => {
  const b = browser();
  const { config } = fixtures();
  const out = b.P.outputs(config, "loadTable", { retryStyle: { display: "none" } });
  same(out, [NO, { display: "none" }]);
  assert.throws(() => b.P.outputs(config, "loadTable", { nonsense: 1 }), /no output nonsense/);
  assert.equal(b.P.outputs(config, "linkWithAnswers", { link: "x" }), "x");  // a lone output as itself
});

test("parseForm: a profile from the answers, or the field that is wrong", () => {
  const b = withTable();
  const T = b.P.tables[KEY];
  const ok = b.P.parseForm(T, ANSWER);
  same(ok.profile.height, [170, 175]);
  same(ok.profile.weight, [70, 75]);
  assert.equal(ok.profile.district, "09162");
  same(ok.ks, [10, 100]);
  const bad = (answers) => { try { b.P.parseForm(T, Object.assign({}, ANSWER, answers)); } catch (e) { return e; } return null; };
  assert.equal(bad({ hcm: "abc" }).field, "height-cm");
  assert.match(bad({ hcm: "abc" }).message, /is not a number/);
  assert.equal(bad({ wkg: "900" }).field, "weight-kg");
  assert.equal(bad({ district: "nope" }).field, "district");
  assert.equal(bad({ users: "0.5" }).field, "users");
  assert.equal(bad({ auxPct: "18-30:20,25+:5" }).message, "Your own fact: the age bands overlap");
  const imperial = b.P.parseForm(T, Object.assign({}, ANSWER, { units: "imperial", hft: "5", hin: "8", wlb: "154" }));
  same(imperial.profile.height, [170, 175]);  // 68 in = 172.72 cm
  same(imperial.profile.weight, [65, 70]);    // 154 lb = 69.85 kg
  assert.equal(bad({ units: "imperial", hft: "5", hin: "30" }).field, "height-in");
});

test("compute: the answer on DE's public table, as named outputs in the words of the engine", () => {
  const b = withTable();
  const out = compute(b, {});
  const report = b.E.report(b.P.tables[KEY], b.P.parseForm(b.P.tables[KEY], ANSWER).profile, { users: null, ks: [10, 100] });
  assert.equal(out.headline, b.E.ownHeadline(report.others));
  assert.match(out.headline, /^You and about [\d,]+ others share these attributes$/);
  assert.ok(out.verdict.startsWith(b.E.verdict(report.cas, report.others, report.reidentification.correctness)));
  assert.equal(out.status, "");  // the body model is a detail below the answer, not its first line
  assert.match(JSON.stringify(out.warnings), /Body model: /);
  assert.equal(out.message, null);
  assert.equal(out.resultsClass, "results-panel");
  assert.equal(out.answerClass, "answer-panel");
  assert.equal(out.later.figures.length, 6);
  assert.equal(out.mapValues.key, KEY);
  assert.equal(out.mapValues.district, "09162");
  assert.equal(out.funnelText.length, report.funnel.length);
  const last = out.funnelText[out.funnelText.length - 1].props.children[1].props.children;
  assert.equal(last, b.E.formatPeople(report.funnel[report.funnel.length - 1].count));
});

test("compute: before any answer the page asks the first question and shows no count (issue 28)", () => {
  const b = withTable();
  const none = { district: null, sex: null, ages: [], hcm: null, wkg: null };
  const out = compute(b, none);
  assert.equal(out.headline, b.E.firstQuestion(false));
  assert.doesNotMatch(out.headline, /\d/);
  assert.equal(out.resultsClass, "results-panel cleared");
  same(out.funnelText, []);
  same(out.later.reid, []);
  const one = compute(b, Object.assign({}, none, { sex: "female" }));  // one attribute: a count
  assert.match(one.headline, /^You and about [\d,]+ others/);
  assert.equal(one.resultsClass, "results-panel");
});

test("compute: one number for the crowd: the headline's others and the funnel's last line round alike", () => {
  const b = withTable();
  for (const answers of [{}, { hcm: "190", wkg: "50", ages: ["18\u201320"] }, { hcm: "201", wkg: "58" }]) {
    const out = compute(b, answers);
    const last = out.funnelText[out.funnelText.length - 1].props.children[1].props.children;
    const said = /about ([\d,]+) other/.exec(out.headline);
    if (said) assert.equal(said[1], last, out.headline + " | " + last);
  }
});

test("compute: imperial answers are shown back in feet, inches and pounds (with the census bands in cm)", () => {
  const b = withTable();
  const out = compute(b, { units: "imperial", hcm: null, wkg: null, hft: "5", hin: "8", wlb: "154" });
  const lines = out.funnelText.map((li) => li.props.children[0].props.children);
  assert.ok(lines.some((l) => /^5 ft 6\.9 in \u2013 5 ft 8\.9 in \(170\u2013175 cm\)/.test(l)), lines.join(" | "));
  assert.ok(lines.some((l) => /^143\.3\u2013154\.3 lb \(65\u201370 kg\)/.test(l)), lines.join(" | "));
  // the what-if charts too (issue 28): the height and weight bands in feet/inches and pounds
  const [, , , height, weight] = out.later.figures;
  assert.match(height.layout.title.text, /feet and inches/);
  assert.ok(height.data[0].x.includes("5\u20326.9\u2033\u20135\u20328.9\u2033"), height.data[0].x.join(" | "));
  assert.match(weight.layout.title.text, /\(lb\)/);
  assert.ok(weight.data[0].x.includes("143.3\u2013154.3 lb"), weight.data[0].x.join(" | "));
  assert.ok(!height.data[0].x.some((l) => /cm/.test(l)));
  const metric = compute(b, {}).later.figures[3];
  assert.match(metric.layout.title.text, /\(cm\)/);
});

test("parseForm: the range's top value is inside it (250 cm, 350 kg), as its message says", () => {
  const b = withTable();
  const T = b.P.tables[KEY];
  same(b.P.parseForm(T, Object.assign({}, ANSWER, { hcm: "250", wkg: "350" })).profile.height, [245, 250]);
  same(b.P.parseForm(T, Object.assign({}, ANSWER, { hcm: "250", wkg: "350" })).profile.weight, [345, 350]);
  assert.throws(() => b.P.parseForm(T, Object.assign({}, ANSWER, { hcm: "250.5" })), (e) => /100\u2013250 cm/.test(e.message));
});

test("parseForm: an adult of 50 cm is a typing slip, refused with the adult range (issue 28)", () => {
  const b = withTable();
  const T = b.P.tables[KEY];
  assert.throws(() => b.P.parseForm(T, Object.assign({}, ANSWER, { hcm: "50" })),
    (e) => e.field === "height-cm" && /not a plausible adult height; give 100\u2013250 cm/.test(e.message));
  assert.throws(() => b.P.parseForm(T, Object.assign({}, ANSWER, { units: "imperial", hft: "2", hin: "0" })),
    (e) => e.field === "height-ft" && /not a plausible adult height/.test(e.message));
  same(b.P.parseForm(T, Object.assign({}, ANSWER, { hcm: "100" })).profile.height, [100, 105]);
});

test("parseForm: the adult-height refusal is the core's text, word for word (core/text adult_height_refusal)", () => {
  const b = withTable();
  const T = b.P.tables[KEY];
  const said = (answer) => { try { b.P.parseForm(T, Object.assign({}, ANSWER, answer)); } catch (e) { return e.message; } };
  assert.equal(said({ hcm: "60" }), fixtures().adult_height.cm_60);
  assert.equal(said({ units: "imperial", hft: "2", hin: "0" }), fixtures().adult_height.inches_24);
  assert.doesNotMatch(fs.readFileSync(path.join(__dirname, "..", "..", "assets", "personal_page.js"), "utf8"),
    /plausible adult/, "the page writes no copy of the text");
});

test("compute: people below one read 'fewer than one' (the engine's formatPeople), never 0", () => {
  const b = withTable();
  const out = compute(b, { hcm: "212", wkg: "40", ages: ["18\u201320"] });
  const cells = JSON.stringify(out.later.changes);
  const people = b.E.report(b.P.tables[KEY], b.P.parseForm(b.P.tables[KEY], Object.assign({}, ANSWER,
    { hcm: "212", wkg: "40", ages: ["18\u201320"] })).profile, {}).cas;
  assert.ok(people < 1, String(people));
  assert.ok(cells.includes("fewer than one"));
  assert.ok(!/"0"/.test(cells));
});

test("compute: no result while loading, after a failed table, or for a bad answer", () => {
  const b = withTable();
  const loading = compute(b, {}, null);
  assert.equal(loading.headline, "Loading\u2026");
  assert.equal(loading.resultsClass, "results-panel cleared");
  const failed = compute(b, {}, { key: KEY, ok: false, error: "HTTP 500" });
  assert.match(JSON.stringify(failed.message), /Could not load the public tables \(HTTP 500\)/);
  const bad = compute(b, { hcm: "abc" });
  assert.equal(bad.answerClass, "answer-panel invalid");
  assert.match(JSON.stringify(bad.message), /Height \(cm\)/);
  assert.equal(bad.verdict, "");
});

test("the address bar: ?country only; the answers follow an opened link's #fragment", async () => {
  const { config } = fixtures();
  const b = browser("http://127.0.0.1/?country=DE&presenter=1&district=09162#district=09162&sex=female");
  b.window.__meFragmentApplied = true;
  assert.equal(b.me.syncAddress(...positional(config, "syncAddress", ANSWER)), "");
  assert.equal(b.replaced.length, 0);  // after the answer is drawn
  await tick();
  assert.equal(b.replaced.length, 1);
  same(b.replaced[0].state, { from: "dash" });  // Dash's history state stays
  assert.equal(b.location.search, "?country=DE&presenter=1");
  const f = new URLSearchParams(b.location.hash.slice(1));
  assert.equal(f.get("district"), "09162");
  assert.equal(f.get("hcm"), "172");
  assert.equal(f.get("ages"), "40\u201345");
  for (const k of config.fragment) assert.ok(!new URLSearchParams(b.location.search).has(k) || k === "country", k);
  b.me.syncAddress(...positional(config, "syncAddress", ANSWER));  // nothing changed: nothing written
  await tick();
  assert.equal(b.replaced.length, 1);
});

test("the address bar without an opened link keeps the fragment empty", async () => {
  const { config } = fixtures();
  const b = browser("http://127.0.0.1/?country=DE");
  b.me.syncAddress(...positional(config, "syncAddress", Object.assign({}, ANSWER, { country: "FR" })));
  await tick();
  assert.equal(b.location.search, "?country=FR");
  assert.equal(b.location.hash, "");
});

test("a link with the answers: the country in the query, the answers in the fragment, sr only for v2", () => {
  const { config } = fixtures();
  const b = browser("http://127.0.0.1/?country=DE");
  const link = b.me.linkWithAnswers(...positional(config, "linkWithAnswers",
    Object.assign({ copyLink: 1 }, ANSWER, { sr: ["on"], aux: ["wearables", "apps"] })));
  const u = new URL(link);
  assert.equal(u.search, "?country=DE");
  assert.equal(u.hash, "#district=09162&sex=female&ages=40%E2%80%9345&units=metric&hcm=172&wkg=70&hw=5&ww=5" +
    "&aux=wearables%7Capps&model=v2&sr=1");
  const paper = new URL(b.me.linkWithAnswers(...positional(config, "linkWithAnswers",
    Object.assign({ copyLink: 1 }, ANSWER, { sr: ["on"], model: "paper" }))));
  assert.ok(!paper.hash.includes("sr="));
});

test("a link's fragment fills the form by name; unknown values are reported", () => {
  const { config } = fixtures();
  const b = browser("http://127.0.0.1/?country=DE");
  const ageOptions = fixtures().table.ages.map((a) => ({ label: a.label, value: a.label }));
  const districtOptions = [{ label: "M\u00fcnchen", value: "09162" }, { label: "Augsburg", value: "09761" }];
  const call = (hash, extra) => named(config, "answersFromFragment", b.me.answersFromFragment(...positional(config,
    "answersFromFragment", Object.assign({ hash, ageOptions, districtOptions, district: null, notice: [] }, extra))));
  const got = call("#district=09162&sex=female&ages=40%E2%80%9345&hcm=172&wkg=70&hw=2&ww=7&model=paper&sr=1");
  assert.equal(got.district, "09162");
  assert.equal(got.sex, "female");
  same(got.ages, ["40\u201345"]);
  assert.equal(got.hcm, "172");
  assert.equal(got.hw, 2);
  assert.equal(got.ww, NO);  // 7 is not a band width
  assert.equal(got.model, "paper");
  same(got.sr, ["on"]);
  assert.equal(got.notice, NO);
  assert.equal(b.window.__meFragmentApplied, true);
  const unknown = call("#district=nope&ages=99%E2%80%93100");
  assert.equal(unknown.district, null);
  same(unknown.ages, []);
  assert.equal(unknown.notice.length, 2);
  assert.ok(Object.values(call("")).every((v) => v === NO));
  b.window.dash_clientside.callback_context = { triggered: [{ prop_id: "me-example.n_clicks" }] };
  const example = call("");
  assert.equal(example.sex, "female");
  assert.equal(example.district, "09162");
  same(example.ages, ["40\u201345"]);
  assert.equal(example.notice, NO);
  // a national-only data set: its one "district" is the country, so the example chooses none
  const national = named(config, "answersFromFragment", b.me.answersFromFragment(...positional(config,
    "answersFromFragment", { hash: "", ageOptions, districtOptions: [{ label: "Nigeria", value: "NG" }], district: null,
      notice: [] })));
  assert.equal(national.district, NO);
  assert.equal(national.sex, "female");
});

test("the one URL sync: only on its page, nothing when unchanged, the query store's callback", () => {
  const b = browser("http://127.0.0.1/scaling?view=census#x");
  const sync = b.window.anonset.syncUrl;
  assert.equal(sync({ search: "?view=explore", path: "/explore" }), false);
  assert.equal(sync({ search: "?view=census" }), false);
  assert.equal(sync({ search: "?view=explore", path: "/scaling" }), true);
  assert.equal(b.location.search + b.location.hash, "?view=explore#x");
  assert.equal(b.replaced[0].state, null);
  const q = b.window.dash_clientside.anonset.syncQuery;
  assert.equal(q(null), NO);
  assert.equal(q("?view=forecast"), "");
  assert.equal(b.location.search, "?view=forecast");
});

test("the one URL sync: of deferred writes in one task the latest wins (an opened link keeps its answers)", async () => {
  // Dash ran the personal page's first syncAddress (the form still empty) and the one with the link's answers in
  // one task: the second saw the address unchanged and wrote nothing, then the first's stale write landed.
  const full = "#district=11000&sex=female&units=metric&hcm=170&wkg=70&hw=5&ww=5&model=v2";
  const b = browser("http://127.0.0.1/?country=DE" + full);
  const sync = b.window.anonset.syncUrl;
  assert.equal(sync({ search: "?country=DE", hash: "#units=metric&hw=5&ww=5&model=v2", keepState: true, later: true }), true);
  assert.equal(sync({ search: "?country=DE", hash: full, keepState: true, later: true }), false);  // back to what is shown
  await tick();
  assert.equal(b.location.hash, full);
  assert.equal(b.replaced.length, 0);
  // several in a row: one write, of the last
  sync({ hash: "#a=1", later: true });
  sync({ hash: "#a=2", later: true });
  assert.equal(sync({ hash: "#a=3", later: true }), true);
  await tick();
  same(b.replaced.map((r) => r.url), ["/?country=DE#a=3"]);
  // a write now supersedes one still to come
  sync({ hash: "#b=1", later: true });
  sync({ hash: "#b=2" });
  await tick();
  assert.equal(b.location.hash, "#b=2");
  assert.equal(b.replaced.length, 2);
});

test("a #fragment that arrives is not overwritten by the form's older answers before the form reads it", async () => {
  const { config } = fixtures();
  const first = "#district=09162&sex=female&units=metric&hcm=172&wkg=70&hw=5&ww=5&model=v2";
  const b = browser("http://127.0.0.1/?country=DE" + first);
  const ageOptions = fixtures().table.ages.map((a) => ({ label: a.label, value: a.label }));
  const districtOptions = [{ label: "M\u00fcnchen", value: "09162" }, { label: "Augsburg", value: "09761" }];
  const read = (hash) => b.me.answersFromFragment(...positional(config, "answersFromFragment",
    { hash, ageOptions, districtOptions, district: null, notice: [] }));
  read(first);
  // the first answers' address write is still to come when a script (or the person) sets another fragment
  b.me.syncAddress(...positional(config, "syncAddress", Object.assign({}, ANSWER, { hcm: "171" })));
  const second = "#district=09761&sex=male&units=metric&hcm=180&wkg=90&hw=5&ww=5&model=v2";
  b.navigate(second);
  await tick();
  assert.equal(b.location.hash, second);  // the deferred write of the older answers did not land
  b.me.syncAddress(...positional(config, "syncAddress", Object.assign({}, ANSWER, { hcm: "171" })));  // still older
  await tick();
  assert.equal(b.location.hash, second);
  read(second);  // the form reads it: from now on the address follows the form again
  b.me.syncAddress(...positional(config, "syncAddress", Object.assign({}, ANSWER, { district: "09761", sex: "male",
    hcm: "180", wkg: "90" })));
  await tick();
  const f = new URLSearchParams(b.location.hash.slice(1));
  assert.equal(f.get("district"), "09761");
  assert.equal(f.get("hcm"), "180");
  assert.equal(f.get("ages"), "40\u201345");  // written from the form, not kept from the link
});

test("the funnel's log axis uses the engine's one tick rule", () => {
  const b = withTable();
  b.E.useText(fixtures().config.text);
  same(b.P.logTicks(1e-3, 8e7), JSON.parse(JSON.stringify(b.E.logTicks(1e-3, 8e7))));
  same(b.E.logTicks(1, 1000)[1], ["1", "10", "100", "1k"]);
});

test("a table's address: the server's route, or in a static copy the file its config names (or why there is none)", () => {
  const b = browser("http://127.0.0.1/?country=DE");
  const config = fixtures().config;
  same(b.P.tableUrl(config, "US-ZCTA", "v2", 5, 10, 1),
    { url: `/_tables/US-ZCTA.json?model=v2&hw=5&ww=10&sr=1&v=${encodeURIComponent(config.v)}` });
  const copy = Object.assign({}, config, { static: { country: "DE", offered: "5 cm height and 5 kg weight bands",
    tables: { "v2|5|5|0": "/_tables/DE.v2.5.5.0.json", "v2|5|5|1": "/_tables/DE.v2.5.5.0.json" } } });
  same(b.P.tableUrl(copy, "DE", "v2", 5, 5, 1), { url: `/_tables/DE.v2.5.5.0.json?v=${encodeURIComponent(config.v)}` });
  same(b.P.tableUrl(copy, "US", "v2", 5, 5, 0), { elsewhere: true });
  const missing = b.P.tableUrl(copy, "DE", "paper", 2, 5, 0).missing;
  assert.match(missing, /holds the tables for 5 cm height and 5 kg weight bands only, not for a 2 cm height band/);
  assert.match(missing, /anonset cas --country DE --height-width 2 --weight-width 5 --model paper/);
  // the page then says so, with no number and no retry
  const out = compute(withTable(), { model: "paper", hw: 2 }, { key: "DE|2|5|paper|0", ok: false, missing: true, error: missing });
  assert.match(JSON.stringify(out.message), /holds the tables for/);
  assert.doesNotMatch(JSON.stringify(out.message), /Retry/);
  assert.match(String(out.headline), /does not hold that table/);
});
