// The district search in the browser (assets/personal_page.js rankDistricts) gives exactly the options of
// core.country.rank_districts on real names (tests/js/fixtures.py QUERIES: DE and IT-COM with their GeoNames
// places), and districtOptions hands Dash's dropdown only what it takes.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const { fixtures, browser } = require("./harness");

const plain = (x) => JSON.parse(JSON.stringify(x));

test("the browser ranks districts and places as Python does", () => {
  const b = browser();
  for (const [code, c] of Object.entries(fixtures().search)) {
    for (const [query, [options, matched]] of Object.entries(c.expected)) {
      const got = plain(b.P.rankDistricts(query, c.districts, c.places, c.word, 30));
      assert.deepEqual(got.options, options, code + ": " + query);
      assert.equal(got.matched, matched, code + ": " + query);
    }
  }
});

test("a place below district level reads where it is counted", () => {
  const b = browser();
  const c = fixtures().search.DE;
  const top = b.P.rankDistricts("Neukölln", c.districts, c.places, c.word, 5).options[0];
  assert.equal(top.label, "Neukölln is part of Berlin, published as one Kreis");
  assert.equal(top.value, "11000");
});

test("districtOptions: Dash's keys only, the typed text kept for Dash's own filter, the places fetched once", async () => {
  const b = browser();
  const c = fixtures().search["IT-COM"];
  let fetched = 0;
  b.context.fetch = b.window.fetch = undefined;
  b.context.fetch = () => { fetched++; return Promise.resolve({ ok: true, json: () => Promise.resolve({ word: c.word, places: c.places }) }); };
  const first = await b.me.districtOptions("Rome", c.districts, null, "IT-COM");
  assert.equal(first[0].label.split(" (")[0], "Roma");
  for (const o of first) assert.deepEqual(Object.keys(o).filter((k) => !["label", "value", "search", "disabled"].includes(k)), []);
  assert.ok(first.every((o) => o.search.startsWith("Rome")));
  await b.me.districtOptions("Forli", c.districts, null, "IT-COM");
  assert.equal(fetched, 1);
  const none = b.me.districtOptions("", c.districts, null, "IT-COM");
  assert.equal(none.length, 101);  // the first 100 and a line saying how many more
});
