// Parity runner: reads {"tables": {name: table (parts may be {"$same": [table, ...keys]})}, "cases": [{table, profile, users, ks}], "text": client_text()} on stdin,
// writes the engine's reports as JSON on stdout (tests/test_engine_parity.py compares them with the core).
"use strict";
const path = require("path");
const E = require(path.join(__dirname, "..", "..", "assets", "anonset_engine.js"));
let input = "";
process.stdin.on("data", (c) => { input += c; });
process.stdin.on("end", () => {
  const data = JSON.parse(input);
  // a part written once for several tables (tests/support/parity_cases.py shared_tables): each table gets its own copy,
  // resolved from the tables as sent before any of them is prepared
  const sent = data.tables;
  const resolve = (v) => {
    if (v === null || typeof v !== "object" || Array.isArray(v)) return v;
    if (Object.keys(v).length === 1 && Array.isArray(v.$same)) {
      const [name, ...keys] = v.$same;
      return structuredClone(keys.reduce((o, k) => o[k], sent[name]));
    }
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, resolve(x)]));
  };
  data.tables = Object.fromEntries(Object.entries(sent).map(([name, t]) => [name, resolve(t)]));
  // the engine's words and number rules, as the page hands them over (config.text: dashboard.core.text.client_text)
  E.useText(data.text);
  const prepared = {};
  for (const [name, table] of Object.entries(data.tables)) prepared[name] = E.prepare(table);
  const out = data.cases.map((c) => {
    try {
      const r = E.report(prepared[c.table], c.profile, { users: c.users, ks: c.ks });
      return { ok: true, report: r };
    } catch (e) {
      return { ok: false, error: String(e && e.message || e) };
    }
  });
  process.stdout.write(JSON.stringify(out, (k, v) => (v === Infinity ? "Infinity" : (v instanceof Float64Array ? Array.from(v) : v))));
});
