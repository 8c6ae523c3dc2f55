// A stand-in for the browser under node: window, document, location and history for the page's scripts
// (assets/anonset_engine.js, assets/url_sync.js, assets/personal_page.js), and the Python side's fixtures
// (tests/js/fixtures.py: the personal page's config with core/text's data, and DE's public table).
"use strict";
const fs = require("fs");
const path = require("path");
const { execFileSync } = require("child_process");

const ROOT = path.join(__dirname, "..", "..");
const ASSETS = path.join(ROOT, "assets");
const NO = "NO_UPDATE";

let cached = null;
function fixtures() {
  if (cached) return cached;
  const file = process.env.ANONSET_JS_FIXTURES;
  const json = file ? fs.readFileSync(file, "utf8")
    : execFileSync(process.env.ANONSET_PYTHON || "python3", [path.join(__dirname, "fixtures.py")],
      { cwd: ROOT, encoding: "utf8", maxBuffer: 1 << 30 });
  cached = JSON.parse(json);
  return cached;
}

/** A fresh browser stand-in with the page's scripts loaded; `url` is where the page is. */
function browser(url) {
  const u = new URL(url || "http://127.0.0.1/?country=DE");
  const replaced = [];
  const location = { origin: u.origin, pathname: u.pathname, search: u.search, hash: u.hash };
  const history = {
    state: { from: "dash" },
    replaceState(state, _title, want) {
      replaced.push({ state, url: want });
      const w = new URL(want, location.origin);
      location.pathname = w.pathname; location.search = w.search; location.hash = w.hash;
    },
  };
  const listeners = [];
  const windowListeners = {};
  const win = {
    location, history,
    dash_clientside: { no_update: NO, callback_context: { triggered: [] } },
    isSecureContext: false,
    dispatchEvent() {},
    addEventListener(type, f) { (windowListeners[type] = windowListeners[type] || []).push(f); },
  };
  /** A navigation to another #fragment, as `location.hash = …` does: the address changes, then popstate and
      hashchange fire. */
  const navigate = (hash) => {
    location.hash = hash;
    for (const type of ["popstate", "hashchange"]) (windowListeners[type] || []).forEach((f) => f({ type }));
  };
  const context = {
    window: win, document: { addEventListener: (...a) => listeners.push(a), getElementById: () => null, querySelectorAll: () => [] },
    navigator: {}, performance, URLSearchParams, URL, setTimeout, console, Promise, Object, Array, Math, Number, String,
    JSON, Error, isFinite, Float64Array, WeakMap, Event: function Event(type) { this.type = type; },
    requestAnimationFrame: (f) => setTimeout(f, 0),
  };
  context.globalThis = context;
  const vm = require("vm");
  vm.createContext(context);
  for (const name of ["anonset_engine.js", "url_sync.js", "personal_page.js"]) {
    vm.runInContext(fs.readFileSync(path.join(ASSETS, name), "utf8"), context, { filename: name });
  }
  return { window: win, location, history, replaced, navigate, me: win.dash_clientside.anonsetMe, E: win.AnonSetEngine,
    P: win.AnonSetPersonal, context };
}

/** The positional arguments Dash would pass to `name` (views/personal.py CALLBACKS), from an object. */
function positional(config, name, values) {
  return config.fields[name].args.map((k) => (k in values ? values[k] : null)).concat([config]);
}

/** Outputs by position → an object keyed by field name. */
function named(config, name, out) {
  const names = config.fields[name].outputs;
  if (names.length === 1) return { [names[0]]: out };
  return Object.fromEntries(names.map((k, i) => [k, out[i]]));
}

module.exports = { fixtures, browser, positional, named, NO, ROOT, ASSETS };
