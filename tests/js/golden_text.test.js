// The browser's face of AnonSet's text (assets/anonset_engine.js fed with dashboard.core.text's data)
// prints exactly the golden table's strings (tests/js/golden_text.json; pytest checks the Python face).
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const fs = require("fs");
const path = require("path");
const { fixtures, ROOT } = require("./harness");

const E = require(path.join(ROOT, "assets", "anonset_engine.js"));
const GOLDEN = JSON.parse(fs.readFileSync(path.join(__dirname, "golden_text.json"), "utf8")).cases;
const decode = (x) => (x === "NaN" ? NaN : x === "Infinity" ? Infinity : x === "-Infinity" ? -Infinity : x);

const FACE = {
  format_count: (x) => E.formatCount(x),
  format_people: (x) => E.formatPeople(x),
  format_band: (band, kind) => E.formatBand(band, kind),
  format_percent: (x, kw) => E.formatPercent(x, !!(kw && kw.positive)),
  short_number: (v) => E.shortNumber(v),
  own_headline: (o) => E.ownHeadline(o),
  verdict: (cas, others, kappa) => E.verdict(cas, others, kappa),
  adult_height_refusal: (value, lo, hi, unit) => E.adultHeightRefusal(value, lo, hi, unit),
};

test("the engine refuses to write before it has the text data", () => {
  const context = { window: {} };
  require("vm").runInNewContext(fs.readFileSync(path.join(ROOT, "assets", "anonset_engine.js"), "utf8"), context);
  const fresh = context.window.AnonSetEngine;
  assert.throws(() => fresh.ownHeadline(3), /useText/);
});

test("the page config ships core/text's data", () => {
  E.useText(fixtures().config.text);
  assert.equal(fixtures().config.text.percent.below_floor, "less than 0.0001 %");
});

for (const fn of [...new Set(GOLDEN.map((c) => c.fn))]) {
  test(`${fn}: every golden case`, () => {
    E.useText(fixtures().config.text);
    const cases = GOLDEN.filter((c) => c.fn === fn);
    assert.ok(cases.length > 0);
    for (const c of cases) {
      const args = c.args.map(decode);
      if (fn === "log_ticks") {
        const [vals, labels] = E.logTicks(args[0], args[1]);
        assert.deepEqual(labels, c.expected.labels, JSON.stringify(c));
        assert.equal(vals.length, c.expected.log10.length);
        vals.forEach((v, i) => assert.ok(Math.abs(Math.log10(v) - c.expected.log10[i]) < 1e-9, JSON.stringify(c)));
        continue;
      }
      const kw = c.kwargs;
      const got = fn === "format_percent" ? FACE[fn](args[0], kw) : FACE[fn](...args);
      assert.equal(got, c.expected, JSON.stringify(c));
    }
  });
}
