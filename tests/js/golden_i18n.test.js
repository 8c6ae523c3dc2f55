// The browser's face of AnonSet's text in every language (issue 31): assets/anonset_engine.js fed with each
// language's text data (dashboard.core.text.client_text(), stored in tests/js/golden_i18n.json) prints exactly
// what the Python face printed — Intl.NumberFormat against Babel, Intl.PluralRules against the catalogue's
// Plural-Forms (tests/core/text/test_i18n_golden.py checks the Python side).
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const fs = require("fs");
const path = require("path");

const ROOT = path.join(__dirname, "..", "..");
const E = require(path.join(ROOT, "assets", "anonset_engine.js"));
const GOLDEN = JSON.parse(fs.readFileSync(path.join(__dirname, "golden_i18n.json"), "utf8")).languages;

const FACE = {
  format_count: (x) => E.formatCount(x),
  format_people: (x) => E.formatPeople(x),
  format_band: (band, kind) => E.formatBand(band, kind),
  format_percent: (x) => E.formatPercent(x, false),
  short_number: (v) => E.shortNumber(v),
  log_ticks: (lo, hi) => E.logTicks(lo, hi)[1],
  own_headline: (o) => E.ownHeadline(o),
  verdict: (cas, others, kappa) => E.verdict(cas, others, kappa),
  first_question: (national) => E.firstQuestion(national),
  adult_height_refusal: (value, lo, hi, unit) => E.adultHeightRefusal(value, lo, hi, unit),
  plural_index: (n) => (E.ngettext("one", "other", n) === "one" ? 0 : 1),
};

for (const [lang, data] of Object.entries(GOLDEN)) {
  test(`${lang}: the engine writes what core/text writes`, () => {
    E.useText(data.text);
    assert.equal(E.lang(), lang);
    assert.ok(data.cases.length > 40);
    for (const c of data.cases) {
      assert.deepEqual(FACE[c.fn](...c.args), c.expected, `${lang} ${JSON.stringify(c)}`);
    }
  });
}

test("the body statistics' source note is said in the page's language (its usual forms)", () => {
  const own = "Body statistics of DE: DE's own table (Statistisches Bundesamt (Destatis), 12211-9018, 2017).";
  E.useText(GOLDEN.de.text);
  const w = E.bodySourceWarning(own);
  assert.equal(w.message, "Körperstatistik für DE: eigene Tabelle des Landes (Statistisches Bundesamt (Destatis), 12211-9018, 2017).");
  assert.equal(w.translated, true);
  assert.equal(E._("withhold sex"), "Geschlecht weglassen");
  assert.equal(E.ngettext("{count} person", "{count} people", 2, { count: "2" }), "2 Personen");
  const odd = E.bodySourceWarning("Body statistics of XX: something else.");
  assert.equal(odd.translated, false);  // quoted in English, marked lang="en" by the page
  E.useText(GOLDEN.en.text);
  assert.equal(E.bodySourceWarning(own).message, own);
});

test("a page's new address keeps the language it was asked in", () => {
  const { browser } = require("./harness");
  const w = browser("http://127.0.0.1/?country=DE&lang=pt");
  w.window.anonset.syncUrl({ search: "?country=FR" });
  assert.equal(w.location.search, "?country=FR&lang=pt");
  w.window.anonset.syncUrl({ search: "" });
  assert.equal(w.location.search, "?lang=pt");
});
