/* AnonSet engine: the personal anonymity set computed in the browser (issue 15).
 *
 * The server sends public tables (dashboard/core/public_tables.py: census counts,
 * age groups, the body model's probability of every height and weight interval per
 * body group, auxiliary fractions) — the same for every visitor.  This module only
 * looks up, multiplies and sums them, exactly as dashboard/core/cas.py and
 * dashboard/core/reidentification.py do; it never computes a body probability itself.
 * A person's answers stay in this browser tab.
 *
 * Plain JavaScript, no framework, nothing fetched from elsewhere.  Exposed as
 * window.AnonSetEngine (and module.exports under node, for the parity test).
 */
(function (root) {
  "use strict";

  var SEXES = ["female", "male"];

  // ------------------------------------------------------------------ formatting

  /** Python's "{x:g}" for the numbers we print (ages, band edges, widths). */
  function g(x) {
    if (x === Infinity) return "inf";
    if (Number.isInteger(x)) return String(x);
    var s = Number(x).toPrecision(6);
    if (s.indexOf("e") < 0 && s.indexOf(".") >= 0) s = s.replace(/0+$/, "").replace(/\.$/, "");
    return s;
  }

  function formatAgeBand(lo, hi) {
    if (hi === null || hi === undefined || !isFinite(hi)) return g(lo) + "+";
    return g(lo) + "\u2013" + g(hi);
  }

  // The words, thresholds and number rules are data: dashboard/core/text (client_text()), shipped in the
  // personal page's config and handed over with useText(); tests/js/golden_text.json is what both faces print.
  var TEXT = null;

  /** Take the text data (dashboard.core.text.client_text()); returns the engine. */
  function useText(text) { if (text) TEXT = text; return api; }

  function text() {
    if (!TEXT) throw new Error("AnonSetEngine: no text data (dashboard.core.text) \u2014 call useText(config.text) first");
    return TEXT;
  }

  /** The language the text data is in ("en" when none is named). */
  function lang() { return (TEXT && TEXT.lang) || "en"; }

  /** A message of the page's JavaScript in the page's language (the catalogue's translation, shipped in
      config.text.messages by dashboard/core/text client_text), "{name}" placeholders filled from values. */
  function _(msgid, values) {
    var m = TEXT && TEXT.messages ? TEXT.messages[msgid] : null;
    var s = typeof m === "string" && m ? m : msgid;
    return values ? fill(s, values) : s;
  }

  var PLURALS = {};
  /** The form of singular/plural for n in the page's language: its plural rule (Intl.PluralRules, CLDR), the
      catalogue's forms (tests/core/text/test_i18n_golden.py: the same form as gettext's Plural-Forms). */
  function ngettext(singular, plural, n, values) {
    var L = lang(), m = TEXT && TEXT.messages ? TEXT.messages[singular] : null;
    var forms = Array.isArray(m) ? m : [singular, plural];
    var rules = PLURALS[L] || (PLURALS[L] = new Intl.PluralRules(L));
    var s = rules.select(Math.floor(Math.abs(n))) === "one" ? forms[0] : forms[1];
    return values ? fill(s, values) : s;
  }

  var NUMBER_FORMATS = {};
  /** An English-written number ("1,234.5") in the page language's digits ("1.234,5"): Intl.NumberFormat with
      the same fraction digits, grouping always (core/text local_number: Babel's format_decimal writes the same). */
  function localNumber(s) {
    var L = lang();
    s = String(s);
    if (L === "en") return s;
    var m = /^(-?)(\d[\d,]*)(?:\.(\d+))?$/.exec(s);
    if (!m) return s;
    var k = m[3] ? m[3].length : 0, key = L + "|" + k;
    var f = NUMBER_FORMATS[key] || (NUMBER_FORMATS[key] = new Intl.NumberFormat(L,
      { useGrouping: "always", minimumFractionDigits: k, maximumFractionDigits: k }));
    return (m[1] ? "\u2212" : "") + f.format(Number(m[2].replace(/,/g, "") + (m[3] ? "." + m[3] : "")));
  }

  /** A district word in the page's language: the office's own term as it names it (Kreis, comuna), an English
      generic one ("NUTS-3 region", "country") translated (core/text district_word); plural when asked. */
  function districtWord(label, plural, givenPlural) {
    var w = TEXT && TEXT.district_words ? TEXT.district_words[label] : null;
    if (w) return plural ? w[1] : w[0];
    return plural ? (givenPlural || label) : label;
  }

  /** "41.8" → "41.8 %" / "41,8\u00a0%" (core/text percent_text). */
  function percentText(s) { return localNumber(s) + text().percent.suffix; }

  /** "{name}" placeholders filled from values (str.format's named fields, as core/text does). */
  function fill(template, values) {
    return template.replace(/\{(\w+)\}/g, function (m, k) { return Object.prototype.hasOwnProperty.call(values, k) ? String(values[k]) : m; });
  }

  /** The template of the first band whose bound x is below (null: everything else), filled. */
  function pick(bands, x, values) {
    for (var i = 0; i < bands.length; i++) {
      if (bands[i].below === null || x < bands[i].below) return fill(bands[i].text, values);
    }
    throw new Error("AnonSetEngine: no band for " + x);
  }

  /** Whole people, rounded down, thousands separator (core/text format_count). */
  function formatCount(x) {
    if (typeof x !== "number" || !isFinite(x)) return text().missing;
    var n = Math.floor(Math.max(x, 0));
    if (n >= 1e21) return n.toLocaleString("en-US", { maximumFractionDigits: 0 });
    var s = String(n), out = "";  // no Intl: a map's hover formats thousands of counts per answer
    for (var i = s.length; i > 0; i -= 3) out = s.slice(Math.max(0, i - 3), i) + (out ? "," + out : "");
    return localNumber(out);
  }

  function formatBand(band, kind) {
    if (band === null || band === undefined) return TEXT && TEXT.any_band ? TEXT.any_band : "any";
    return localNumber(g(band[0])) + "\u2013" + localNumber(g(band[1])) + " " + (kind === "height" ? "cm" : "kg");
  }

  /** A share (0–1) as a percentage people can read: never scientific notation (core/text
      format_percent); ``positive``: the share is known to be above 0, so a 0 is an underflow. */
  function formatPercent(share, positive) {
    var P = text().percent;
    if (typeof share !== "number" || !isFinite(share)) return text().missing;
    var x = 100 * share;
    if (x === 0 && !positive) return P.zero;  // each in the page's language (client_text)
    if (x < P.floor) return P.below_floor;
    if (x < 1) {
      var s = x.toPrecision(2);
      if (s.indexOf("e") >= 0) s = x.toFixed(6);
      return percentText(s.replace(/(\.\d*?)0+$/, "$1").replace(/\.$/, ""));
    }
    if (x > P.near_whole && x < 100) return P.above_near_whole;
    return percentText(x.toFixed(1));
  }

  /** A number of people for a sentence: whole people, or "fewer than one" — never 0.0003 (core/text format_people). */
  function formatPeople(x) {
    if (typeof x !== "number" || !isFinite(x)) return text().missing;
    if (x < 1) return text().fewer_than_one;
    return formatCount(x);
  }

  /** 0.5, 20, 5k, 2M, 1B — never "10m", "1G" or "1e-5" (core/text short_number: the same suffixes). */
  function shortNumber(v) {
    var en = shortNumberEn(v), suffixes = text().short_suffixes, local = text().short_suffixes_local || [];
    for (var i = 0; i < suffixes.length; i++) {
      var sfx = suffixes[i][1];
      if (en.slice(-sfx.length) === sfx) return localNumber(en.slice(0, -sfx.length)) + (local[i] || sfx);
    }
    return localNumber(en);
  }

  function shortNumberEn(v) {
    var suffixes = text().short_suffixes;
    for (var i = 0; i < suffixes.length; i++) if (v >= suffixes[i][0]) return g(v / suffixes[i][0]) + suffixes[i][1];
    if (v >= 1) return g(v);
    return v.toFixed(Math.max(0, Math.ceil(-Math.log10(v) - 1e-9))).replace(/0+$/, "").replace(/\.$/, "");
  }

  /** Log-axis ticks [values, labels]: 1, 2, 5, 10 … between lo and hi (core/text log_ticks, the same rule;
      the values are the numbers themselves, not their log10). */
  function logTicks(lo, hi) {
    var R = text().log_ticks;
    lo = Math.max(lo, R.floor);
    hi = Math.max(hi, lo * 10);
    var vals = [], labels = [];
    for (var e = Math.floor(Math.log10(lo)); e <= Math.ceil(Math.log10(hi)); e++) {
      R.mantissas.forEach(function (m) {
        var v = m * Math.pow(10, e);
        if (v >= lo * (1 - R.tolerance) && v <= hi * (1 + R.tolerance)) { vals.push(v); labels.push(shortNumberEn(v)); }
      });
    }
    if (vals.length > R.crowded) {
      var keep = labels.map(function (t, i) {
        return R.keep_when_crowded.some(function (p) { return t.indexOf(p) === 0; }) ? i : -1;
      }).filter(function (i) { return i >= 0; });
      vals = keep.map(function (i) { return vals[i]; });
    }
    return [vals, vals.map(shortNumber)];  // crowding is read on the English labels, as in core/text
  }

  // ------------------------------------------------------------------ sentences (core/text, from the same data)

  function tenths(x) { return (Math.floor(x * 10 + 0.5) / 10).toFixed(1); }

  /** The personal page's lead, "You and about X others share these attributes" (SPEC §1.7). */
  function ownHeadline(others) {
    var x = Math.max(Number(others) || 0, 0);
    return pick(text().headline, x, { tenths: tenths(x), count: formatCount(x) });
  }

  /** Whether any attribute is given (core/text has_answer): before that the page asks and shows no count. */
  function hasAnswer(profile) {
    var given = function (v) { return v !== null && v !== undefined && v !== ""; };
    return given(profile.district) || given(profile.sex) || given(profile.height) || given(profile.weight) ||
      (profile.ages || []).length > 0 || (profile.aux || []).length > 0;
  }

  /** What the page asks before any answer (core/text first_question). */
  function firstQuestion(national) { return text().first_question[national ? "national" : "district"]; }

  /** Why a typed height is refused (core/text adult_height_refusal, the same template): "Height 60 cm is not a
      plausible adult height; give 100\u2013250 cm"; value: a number, or a band as text; unit: "cm" or "inches". */
  function adultHeightRefusal(value, lo, hi, unit) {
    var typed = function (x) { return localNumber(typeof x === "string" ? x : g(Math.floor(Number(x) * 1e6 + 0.5) / 1e6)); };
    return fill(text().adult_height_refusal, { value: typed(value), lo: typed(lo), hi: typed(hi), unit: unit || "cm" });
  }

  /** One sentence a person can act on; the chance of being picked is κ (SPEC §2). */
  function verdict(cas, others, correctness) {
    return pick(text().verdict, cas, { percent: percentText(String(Math.floor(100 * correctness + 0.5))),
      crowd: formatCount(1 + Math.max(Number(others) || 0, 0)) });
  }

  // ------------------------------------------------------------------ tables

  /** Precompute what every profile of a table shares (counts with shares applied, etc.). */
  function prepare(table) {
    var ns = SEXES.length, na = table.ages.length, nd = table.districts.ids.length;
    var cc = table.census_counts;
    var counts = new Float64Array(nd * ns * na);
    for (var d = 0; d < nd; d++)
      for (var s = 0; s < ns; s++)
        for (var a = 0; a < na; a++) {
          var i = (d * ns + s) * na + a;
          counts[i] = cc[i] * table.ages[a].share;  // core: census_counts[:, :, kept] * shares
        }
    var G = table.body.n;
    var W = Float64Array.from(table.body.weights);
    var regionMembers = {};
    table.districts.region.forEach(function (r, d) { (regionMembers[r] = regionMembers[r] || []).push(d); });
    var index = {};
    table.districts.ids.forEach(function (id, d) { index[id] = d; });
    var aux = {};
    (table.aux || []).forEach(function (t) {
      // a preset's words are ours, in the page's language; quoted in English only where the catalogue lacks them
      aux[t.id] = makeFraction(t.id, _(t.name), t.note ? _(t.note) : "", t.shape, t.f, t.gaps || []);
      aux[t.id].quoted = lang() !== "en" && !!t.note && _(t.note) === t.note;
    });
    var country = new Float64Array(ns * na);
    for (var d2 = 0; d2 < nd; d2++)
      for (var k = 0; k < ns * na; k++) country[k] += counts[d2 * ns * na + k];
    var T = {
      table: table, ns: ns, na: na, nd: nd, G: G, counts: counts, W: W, regionMembers: regionMembers,
      index: index, aux: aux, countryCounts: country, ageLabels: table.ages.map(function (x) { return x.label; }),
    };
    T.population = sum(country);
    var jc = table.body.joint_cdf;
    if (jc) {  // v2: where each band edge sits in every body group's CDF slice
      T.jc = jc;
      T.edgePos = { height: {}, weight: {} };
      ["height", "weight"].forEach(function (kind) {
        jc.edges[kind].forEach(function (x, i) { T.edgePos[kind][g(x)] = i; });
      });
    }
    return T;
  }

  function makeFraction(id, name, note, shape, f, gaps) {
    return { id: id, name: name, note: note, shape: shape, f: Float64Array.from(f), gaps: gaps, dep: shape[0] > 1 };
  }

  function fval(fa, d, s, a) {
    var sh = fa.shape;
    var i = ((sh[0] > 1 ? d : 0) * sh[1] + (sh[1] > 1 ? s : 0)) * sh[2] + (sh[2] > 1 ? a : 0);
    return fa.f[i];
  }

  /** A percentage typed by the person, as a fraction array (census_loaders.auxiliary.user_fraction + the overlap rule). */
  function userFraction(T, spec) {
    var name = spec.name, na = T.na;
    if (spec.percent !== undefined && spec.percent !== null) {
      var v = Math.min(0 + spec.percent / 100 * 1, 1);
      return makeFraction("user", name, _("Entered by the user: {percent} of everyone, in every district, sex and age group.", { percent: percentText(g(spec.percent)) }),
        [1, 1, 1], [v], []);
    }
    var rows = spec.by_age.slice().sort(function (x, y) { return x[0] - y[0]; });
    var f = new Float64Array(na), cover = new Float64Array(na);
    rows.forEach(function (row) {
      var blo = row[0], bhi = (row[1] === null || !isFinite(row[1])) ? Infinity : row[1], fr = row[2] / 100;
      for (var a = 0; a < na; a++) {
        var grp = T.table.ages[a], lo = grp.lo, hi = grp.span_hi;
        var w = Math.max(0, Math.min(hi, bhi) - Math.max(lo, blo)) / (hi - lo);
        f[a] += fr * w;
        cover[a] += w;
      }
    });
    var gaps = [];
    var short = [];
    for (var a = 0; a < na; a++) { if (cover[a] < 1 - 1e-9) short.push(ageLabel(T.table.ages[a])); f[a] = Math.min(f[a], 1); }
    if (short.length) gaps.push(_("{name}: ages {ages} are not (fully) covered; taken as 0 there", { name: name, ages: short.join(", ") }));
    return makeFraction("user", name, _("Entered by the user per age group; assumed equal across districts and sexes."),
      [1, 1, na], Array.from(f), gaps);
  }

  // ------------------------------------------------------------------ core sums

  function sum(arr) { var t = 0; for (var i = 0; i < arr.length; i++) t += arr[i]; return t; }

  /** Σ_{d∈D} N[d,s,a]·Π f[d,s,a] as [s,a] (D null = every district); core: _area_counts. */
  function areaCounts(T, D, fs) {
    var ns = T.ns, na = T.na, K = ns * na;
    var dep = fs.filter(function (f) { return f.dep; }), indep = fs.filter(function (f) { return !f.dep; });
    var m = new Float64Array(K);
    if (dep.length) {
      var nd = D === null ? T.nd : D.length;
      for (var j = 0; j < nd; j++) {
        var d = D === null ? j : D[j];
        for (var s = 0; s < ns; s++)
          for (var a = 0; a < na; a++) {
            var x = T.counts[d * K + s * na + a];
            for (var q = 0; q < dep.length; q++) x = x * fval(dep[q], d, s, a);
            m[s * na + a] += x;
          }
      }
    } else if (D === null) {
      m.set(T.countryCounts);
    } else {
      for (var j2 = 0; j2 < D.length; j2++) {
        var base = D[j2] * K;
        for (var k = 0; k < K; k++) m[k] += T.counts[base + k];
      }
    }
    indep.forEach(function (f) {
      for (var s = 0; s < ns; s++) for (var a = 0; a < na; a++) m[s * na + a] = m[s * na + a] * fval(f, 0, s, a);
    });
    return m;
  }

  function key(band) { return g(band[0]) + "," + g(band[1]); }

  /** Pr_g[band] for every body group (a withheld band is 1), from the table. */
  function groupInterval(T, kind, band) {
    if (band === null || band === undefined) { var one = new Float64Array(T.G); one.fill(1); return one; }
    var p = T.table.body.intervals[kind][key(band)];
    if (!p) throw new EngineError("table", "The " + kind + " band " + formatBand(band, kind) + " is not in the table (stale table?)");
    return p;
  }

  function edgePos(T, kind, x) {
    var i = T.edgePos[kind][g(x)];
    if (i === undefined) throw new EngineError("table", "The " + kind + " band edge " + g(x) + " is not in the table (stale table?)");
    return i;
  }

  /** v2: Pr_g[h-band, w-band] for every body group by inclusion–exclusion on the server's CDF
   *  slice (core: BandProbabilities._v2_rectangles; null = withheld = the ±∞ rows). */
  function rectangle(T, h, w) {
    var G = T.G, out = new Float64Array(G), ih0 = -1, ih1 = -1, iw0 = -1, iw1 = -1;
    if (h) { ih0 = edgePos(T, "height", h[0]); ih1 = edgePos(T, "height", h[1]); }
    if (w) { iw0 = edgePos(T, "weight", w[0]); iw1 = edgePos(T, "weight", w[1]); }
    for (var gi = 0; gi < G; gi++) {
      var q = T.jc.groups[gi], F = q.F, nw = q.nw;
      var i0 = h ? q.h[ih0] : 0, i1 = h ? q.h[ih1] : q.nh - 1;
      var j0 = w ? q.w[iw0] : 0, j1 = w ? q.w[iw1] : nw - 1;
      var v = F[i1 * nw + j1] - F[i0 * nw + j1] - F[i1 * nw + j0] + F[i0 * nw + j0];
      out[gi] = v > 0 ? v : 0;
    }
    return out;
  }

  function given(b) { return b !== null && b !== undefined; }

  /** [i][j] → Pr_g[hb[i], wb[j]] per body group (core: group_cell_table): v2 rectangles when
   *  both lists hold a band, else products of the interval tables. */
  function cellTable(T, hb, wb) {
    var joint = !!T.jc && hb.some(given) && wb.some(given);
    return hb.map(function (h) {
      return wb.map(function (w) {
        return joint ? rectangle(T, h, w)
          : product(given(h) ? groupInterval(T, "height", h) : null, given(w) ? groupInterval(T, "weight", w) : null, T.G);
      });
    });
  }

  /** [s,a] Σ_g W[s,a,g]·v[g] (core: body_weights @ v). */
  function mix(T, v) {
    var K = T.ns * T.na, G = T.G, out = new Float64Array(K);
    for (var k = 0; k < K; k++) {
      var t = 0;
      for (var gi = 0; gi < G; gi++) t += T.W[k * G + gi] * v[gi];
      out[k] = t;
    }
    return out;
  }

  /** [s,a] Pr[h-band] and Pr[h-band, w-band]; core: _cell (clamped, monotone). */
  function cell(T, h, w) {
    var K = T.ns * T.na, ph, phw, i;
    if (h === null) { ph = new Float64Array(K); ph.fill(1); }
    else { ph = mix(T, cellTable(T, [h], [null])[0][0]); for (i = 0; i < K; i++) ph[i] = Math.min(ph[i], 1); }
    if (w === null) phw = ph;
    else if (h === null) {
      phw = mix(T, cellTable(T, [null], [w])[0][0]);
      for (i = 0; i < K; i++) phw[i] = Math.min(phw[i], 1);
    } else {
      phw = mix(T, cellTable(T, [h], [w])[0][0]);
      for (i = 0; i < K; i++) phw[i] = Math.min(phw[i], ph[i]);
    }
    return [ph, phw];
  }

  function product(ph, pw, G) {
    var out = new Float64Array(G);
    for (var gi = 0; gi < G; gi++) out[gi] = (ph ? ph[gi] : 1) * (pw ? pw[gi] : 1);
    return out;
  }

  function selMask(T, S, A) {
    var out = new Float64Array(T.ns * T.na);
    for (var s = 0; s < T.ns; s++) for (var a = 0; a < T.na; a++) out[s * T.na + a] = (S[s] && A[a]) ? 1 : 0;
    return out;
  }

  function dot3(x, m, y) { var t = 0; for (var i = 0; i < x.length; i++) t += x[i] * m[i] * (y ? y[i] : 1); return t; }

  function EngineError(kind, message) { this.kind = kind; this.message = message; }
  EngineError.prototype = Object.create(Error.prototype);

  // ------------------------------------------------------------------ resolve

  /** Bind a profile to a table (core: _resolve). Profile: {district, area, sex, ages:[index], height, weight, aux:[...]} */
  function resolve(T, profile) {
    var district = null, D = null;
    if (profile.district !== null && profile.district !== undefined) {
      district = T.index[profile.district];
      if (district === undefined) throw new EngineError("input", "unknown " + T.table.district_label + " " + profile.district);
      D = profile.area === "region" ? T.regionMembers[T.table.districts.region[district]] : [district];
    }
    var S = [true, true];
    if (profile.sex) { S = [profile.sex === "female", profile.sex === "male"]; }
    var A = [];
    for (var a = 0; a < T.na; a++) A.push(!(profile.ages && profile.ages.length));
    (profile.ages || []).forEach(function (i) { A[i] = true; });
    var aux = (profile.aux || []).map(function (x) {
      if (typeof x === "string") {
        if (!T.aux[x]) throw new EngineError("input", "unknown auxiliary knowledge " + x);
        return T.aux[x];
      }
      return userFraction(T, x);
    });
    return { T: T, p: profile, district: district, D: D, S: S, A: A, aux: aux, sel: selMask(T, S, A) };
  }

  function areaLabel(r) {
    var t = r.T.table, d = r.district;
    if (d === null) return _("any {district}", { district: districtWord(t.district_label) });
    if (r.p.area === "region") return _("{region} ({region_word}, {n} {districts})", { region: t.regions.names[t.districts.region[d]],
      region_word: districtWord(t.region_label), n: r.D.length, districts: districtWord(t.district_label, true, t.district_label_plural) });
    return t.districts.names[d] + " (" + t.districts.ids[d] + ")";
  }

  /** An age group's label in the page's language: a trimmed group names its census group ("18–20 (von 15–20)");
      the table's English label stays the value the form and the address carry. */
  function ageLabel(grp) {
    if (!grp.trimmed || lang() === "en") return grp.label;
    return _("{ages} (of {group})", { ages: formatAgeBand(grp.lo, grp.hi === null ? Infinity : grp.hi),
      group: formatAgeBand(grp.census_lo, grp.census_hi === null ? Infinity : grp.census_hi) });
  }

  function agesLabel(T, A) {
    if (A.every(Boolean)) return _("any age ({ages})", { ages: formatAgeBand(T.table.study[0], T.table.study[1] === null ? Infinity : T.table.study[1]) });
    var runs = [];
    A.forEach(function (on, a) {
      if (!on) return;
      if (runs.length && runs[runs.length - 1][runs[runs.length - 1].length - 1] === a - 1) runs[runs.length - 1].push(a);
      else runs.push([a]);
    });
    var groups = T.table.ages;
    return runs.map(function (run) {
      if (run.length === 1) return ageLabel(groups[run[0]]);
      var hi = groups[run[run.length - 1]].hi;
      return formatAgeBand(groups[run[0]].lo, hi === null ? Infinity : hi);
    }).join(", ");
  }

  // ------------------------------------------------------------------ funnel (core: compute_cas)

  function computeCas(r) {
    var T = r.T, t = T.table, p = r.p, ns = T.ns, na = T.na;
    var countrySa = areaCounts(T, null, []), areaSa = areaCounts(T, r.D, []);
    var smask = new Float64Array(ns * na);
    for (var s = 0; s < ns; s++) for (var a = 0; a < na; a++) smask[s * na + a] = r.S[s] ? 1 : 0;
    var c = cell(T, p.height, p.weight), ph = c[0], phw = c[1];
    var lines = [
      { step: "country", value: t.name, count: sum(countrySa) },
      { step: "district", value: areaLabel(r), count: sum(areaSa) },
      { step: "sex", value: p.sex || "any", count: dot3(areaSa, smask) },
      { step: "age", value: agesLabel(T, r.A), count: dot3(areaSa, r.sel) },
      { step: "height", value: formatBand(p.height, "height"), count: dot3(areaSa, r.sel, ph) },
      { step: "weight", value: formatBand(p.weight, "weight"), count: dot3(areaSa, r.sel, phw) },
    ];
    r.aux.forEach(function (fa, k) {
      var mass = areaCounts(T, r.D, r.aux.slice(0, k + 1));
      lines.push({ step: "auxiliary", value: fa.name, count: dot3(mass, r.sel, phw), key: fa.id });
    });
    var cas = lines[lines.length - 1].count;
    var warnings = [], bmi = null, plausible = null, bmiRange = t.constants.bmi_range;
    if (p.height && p.weight) {
      var hc = (p.height[0] + p.height[1]) / 2, wc = (p.weight[0] + p.weight[1]) / 2;
      bmi = wc / Math.pow(hc / 100, 2);
      plausible = bmiRange[0] <= bmi && bmi <= bmiRange[1];
      if (t.model === "v2") plausible = null;
      if (plausible === false) warnings.push({ code: "implausible_bmi", message:
        _("BMI {bmi} at the centre of {height} \u00d7 {weight} lies outside {lo}\u2013{hi}: outside the paper model's range. The estimate is shown, but the paper model leaves such cells out of every aggregate.",
          { bmi: localNumber(bmi.toFixed(1)), height: formatBand(p.height, "height"), weight: formatBand(p.weight, "weight"), lo: localNumber(g(bmiRange[0])), hi: localNumber(g(bmiRange[1])) }) });
    }
    if (r.district !== null) {
      if (p.area !== "region" && t.districts.filled[r.district]) {
        warnings.push({ code: "filled_district", message: _("{name} is a filled {district}: the published table does not cover it, so its counts are the rest of its {region} spread evenly (SPEC \u00a71.4).",
          { name: t.districts.names[r.district], district: districtWord(t.district_label), region: districtWord(t.region_label) }) });
      } else if (p.area === "region") {
        var nf = r.D.filter(function (d) { return t.districts.filled[d]; }).length;
        if (nf) warnings.push({ code: "filled_district", message: _("{n} of the {total} {districts} in this {region} are filled estimates.",
          { n: nf, total: r.D.length, districts: districtWord(t.district_label, true, t.district_label + "s"), region: districtWord(t.region_label) }) });
      }
    }
    var usesBody = !!(p.height || p.weight);
    if (usesBody && t.body.height_shift_note) warnings.push({ code: "height_shift", message: t.body.height_shift_note });
    if (usesBody && t.body.self_report_note) warnings.push({ code: "self_report_correction", message: selfReportNote(t.body) });
    if (usesBody && t.body.body_note) warnings.push(bodySourceWarning(t.body.body_note));
    if (usesBody && t.body.borrowed_from) {
      warnings.push({ code: "borrowed_body_statistics", message: _("{name} has no height and weight statistics of its own: those of {other} ({code}) are used.",
        { name: t.name, other: t.body.prior_country_name || t.body.borrowed_from, code: t.body.borrowed_from }) });
    }
    if (usesBody) {
      r.A.forEach(function (on, a) {
        if (!on) return;
        for (var s = 0; s < ns; s++) if (r.S[s] && t.body.nearest[s][a]) { warnings.push(nearestBodyWarning(t, s, a)); break; }
      });
    }
    r.A.forEach(function (on, a) {
      var grp = t.ages[a];
      if (on && grp.trimmed) warnings.push({ code: "trimmed_age_group", message: _("Only ages {ages} of the census group {group} are in the study population: {percent} of its people are counted (taken as spread evenly over its years).",
        { ages: formatAgeBand(grp.lo, grp.hi === null ? Infinity : grp.hi), group: formatAgeBand(grp.census_lo, grp.census_hi === null ? Infinity : grp.census_hi),
          percent: percentText(String(Math.round(grp.share * 100))) }) });
    });
    r.aux.forEach(function (fa) {
      fa.gaps.forEach(function (gap) { warnings.push({ code: "auxiliary_gap", message: gap }); });
      if (fa.note) warnings.push({ code: "auxiliary_note", message: fa.name + ": " + fa.note, translated: !fa.quoted });
    });
    if (r.aux.length > 1) warnings.push({ code: "auxiliary_note", message: _("Auxiliary fractions are multiplied: they are assumed independent of each other.") });
    if (cas < 1) warnings.push({ code: "likely_unique", message: _("Fewer than one other person expected: likely unique (you are probably the only one with this profile).") });
    return { funnel: lines, cas: cas, population: sum(countrySa), warnings: warnings, bmi: bmi, plausible: plausible };
  }

  // ------------------------------------------------------------------ what-ifs (core: what_ifs)

  function evaluate(r, o) {
    var T = r.T, p = r.p;
    var D = "D" in o ? o.D : r.D, S = o.S || r.S, A = o.A || r.A;
    var h = "h" in o ? o.h : p.height, w = "w" in o ? o.w : p.weight;
    var mass = areaCounts(T, D, o.aux || r.aux);
    var phw = cell(T, h, w)[1];
    return dot3(mass, selMask(T, S, A), phw);
  }

  function widenBand(band, width) {
    var eps = 1e-9, lo = Math.floor(band[0] / width + eps) * width, hi = Math.ceil(band[1] / width - eps) * width;
    return [lo, Math.max(hi, lo + width)];
  }

  function sensibleBands(T, kind, width, groups, chosen) {
    var b = T.table.body, means = b[kind + "_mean"], sds = b[kind + "_sd"], k = T.table.constants.whatif_sds;
    var lim = T.table.constants.limits[kind];
    var mn = Infinity, mx = -Infinity;
    groups.forEach(function (gi) { mn = Math.min(mn, means[gi] - k * sds[gi]); mx = Math.max(mx, means[gi] + k * sds[gi]); });
    var lo = Math.max(lim[0], Math.floor(mn / width) * width), hi = Math.min(lim[1], Math.ceil(mx / width) * width);
    lo = Math.ceil(lo / width) * width;
    if (chosen) { lo = Math.min(lo, chosen[0]); hi = Math.max(hi, chosen[1]); }
    var n = Math.max(0, Math.ceil((hi - 1e-9 - lo) / width)), out = [];
    for (var i = 0; i < n; i++) out.push(lo + i * width);
    return out;
  }

  function bandWhatIf(r, kind, massSel) {
    var T = r.T, p = r.p, G = T.G, K = T.ns * T.na;
    var chosen = kind === "height" ? p.height : p.weight, other = kind === "height" ? p.weight : p.height;
    var otherKind = kind === "height" ? "weight" : "height";
    var width = chosen ? chosen[1] - chosen[0] : T.table.constants.default_width;
    var gi_other = groupInterval(T, otherKind, other);
    var v = new Float64Array(G), usedW = new Float64Array(G);
    for (var k = 0; k < K; k++) for (var gi = 0; gi < G; gi++) {
      v[gi] += massSel[k] * T.W[k * G + gi];
      usedW[gi] += (massSel[k] > 0 ? 1 : 0) * T.W[k * G + gi];
    }
    var joint = !!T.jc && !!other;  // core: group_band_cells (v2 rectangles with the other band)
    if (!joint) for (var gj = 0; gj < G; gj++) v[gj] = v[gj] * gi_other[gj];
    var used = [];
    for (var g2 = 0; g2 < G; g2++) if (usedW[g2] > 0) used.push(g2);
    if (!used.length) for (var g3 = 0; g3 < G; g3++) used.push(g3);
    var starts = sensibleBands(T, kind, width, used, chosen);
    var rows = starts.map(function (st) {
      var band = [st, st + width], c = 0;
      var P = !joint ? groupInterval(T, kind, band) : kind === "height" ? rectangle(T, band, other) : rectangle(T, other, band);
      for (var gi = 0; gi < G; gi++) c += v[gi] * P[gi];
      var row = { key: st, label: g(st) + "\u2013" + g(st + width), cas: c, chosen: !!chosen && Math.abs(st - chosen[0]) <= 1e-8 + 1e-5 * Math.abs(chosen[0]) };
      if (other && T.table.model !== "v2") {
        var br = T.table.constants.bmi_range, hc, wc;
        if (kind === "height") { hc = st + width / 2; wc = (other[0] + other[1]) / 2; } else { wc = st + width / 2; hc = (other[0] + other[1]) / 2; }
        var bmi = wc / Math.pow(hc / 100, 2);
        row.plausible = bmi >= br[0] && bmi <= br[1] && hc > 0;
      }
      return row;
    });
    return rows;
  }

  function whatIfs(r) {
    var T = r.T, t = T.table, p = r.p, ns = T.ns, na = T.na, K = ns * na;
    var phw = cell(T, p.height, p.weight)[1];
    var mass = areaCounts(T, r.D, r.aux);
    var cas = dot3(mass, r.sel, phw);
    // districts
    var weightSa = new Float64Array(K);
    for (var k = 0; k < K; k++) weightSa[k] = r.sel[k] * phw[k];
    var dep = r.aux.filter(function (f) { return f.dep; });
    r.aux.forEach(function (f) {
      if (!f.dep) for (var s = 0; s < ns; s++) for (var a = 0; a < na; a++) weightSa[s * na + a] = weightSa[s * na + a] * fval(f, 0, s, a);
    });
    var per = new Float64Array(T.nd);
    for (var d = 0; d < T.nd; d++) {
      var tot = 0;
      for (var s2 = 0; s2 < ns; s2++) for (var a2 = 0; a2 < na; a2++) {
        var x = T.counts[d * K + s2 * na + a2];
        for (var q = 0; q < dep.length; q++) x = x * fval(dep[q], d, s2, a2);
        tot += x * weightSa[s2 * na + a2];
      }
      per[d] = tot;
    }
    var order = [];
    for (var i = 0; i < T.nd; i++) order.push(i);
    order.sort(function (x, y) { return per[y] - per[x] || x - y; });
    var district = order.map(function (d) {
      return { key: t.districts.ids[d], label: t.districts.names[d], cas: per[d], chosen: r.D !== null && r.D.indexOf(d) >= 0 };
    });
    var sexRows = SEXES.map(function (sx, s) {
      var c = 0;
      for (var a = 0; a < na; a++) c += mass[s * na + a] * (r.A[a] ? 1 : 0) * phw[s * na + a];
      return { key: sx, label: sx, cas: c, chosen: p.sex ? r.S[s] : false };
    });
    var ageRows = t.ages.map(function (grp, a) {
      var c = 0;
      for (var s = 0; s < ns; s++) c += mass[s * na + a] * (r.S[s] ? 1 : 0) * phw[s * na + a];
      return { key: grp.label, label: ageLabel(grp), cas: c, chosen: (p.ages && p.ages.length) ? r.A[a] : false };
    });
    var massSel = new Float64Array(K);
    for (var k2 = 0; k2 < K; k2++) massSel[k2] = mass[k2] * r.sel[k2];
    var height = bandWhatIf(r, "height", massSel), weight = bandWhatIf(r, "weight", massSel);
    var widen = [];
    ["height", "weight"].forEach(function (kind) {
      var band = p[kind];
      if (!band) return;
      t.constants.widths.forEach(function (wdt) {
        if (wdt <= band[1] - band[0]) return;
        var nb = widenBand(band, wdt), o = {};
        o[kind === "height" ? "h" : "w"] = nb;
        widen.push({ attribute: kind, action: "widen", label: fill(kind === "height" ? _("height {band} (width {width})") : _("weight {band} (width {width})"), { band: formatBand(nb, kind), width: localNumber(g(wdt)) }), cas: evaluate(r, o), band: nb });
      });
    });
    return { cas: cas, district: district, sex: sexRows, age: ageRows, height: height, weight: weight, widen: widen, withhold: withholdings(r) };
  }

  /** A census group beyond the body statistics, and the nearest body group it uses: the core's sentence, said in
      the page's language from the table's values (quoted in English, translated: false, from a table without them). */
  function nearestBodyWarning(t, s, a) {
    var parts = t.body.nearest_parts && t.body.nearest_parts[s][a];
    var out = { code: "nearest_body_group", message: t.body.nearest_notes[s][a], translated: lang() === "en" };
    if (!parts || lang() === "en") return out;
    var sexes = t.constants.sexes;
    out.message = _("{sex} {group} reaches beyond the body statistics ({ages}); the nearest body group is used ({groups})", {
      sex: _(sexes[s]), group: ageLabel(t.ages[a]), ages: formatAgeBand(parts.range[0], parts.range[1]),
      groups: parts.used.map(function (u) { return _(u[0]) + " " + formatAgeBand(u[1], u[2]); }).join(", ") });
    out.translated = true;
    return out;
  }

  /** The self-report correction's note in the page's language (the core's own msgid and numbers; the table's
      English sentence where the table predates its offsets). */
  function selfReportNote(body) {
    var o = body.self_report_offsets;
    if (!o || lang() === "en") return body.self_report_note;
    var signed = function (x) { var s = (x >= 0 ? "+" : "") + x.toFixed(1); return s.charAt(0) === "+" ? "+" + localNumber(s.slice(1)) : localNumber(s); };
    return _("Self-reported body statistics corrected to measured ones (NHANES: self-reported height {height} cm, weight {weight} kg against measured).",
      { height: signed(o[0]), weight: signed(o[1]) });
  }

  /** The body statistics' source note: the core writes it in English into the public table (shared by every
      language); its two usual forms are said in the page's language, any other is quoted (translated: false). */
  function bodySourceWarning(note) {
    var m, out = { code: "body_source", message: note, translated: lang() === "en" };
    if (lang() === "en") return out;
    if ((m = /^Body statistics of ([A-Za-z0-9-]+): .*'s own table \((.*)\)\.$/.exec(note))) {
      out.message = _("Body statistics of {code}: its own table ({source}).", { code: m[1], source: m[2] });
      out.translated = true;
    } else if ((m = /^Body statistics of ([A-Za-z0-9-]+): NCD-RisC prior for (\d{4}) \(mean height of the birth cohorts, NCD-RisC BMI (\d{4}); spread and height\u2013BMI dependence of the measured NHANES 2017\u20132018 adults\)\.$/.exec(note))) {
      out.message = _("Body statistics of {code}: NCD-RisC estimates for {year} (mean height of the birth cohorts, NCD-RisC BMI {bmi_year}; spread and height\u2013BMI dependence of the measured NHANES 2017\u20132018 adults).",
        { code: m[1], year: m[2], bmi_year: m[3] });
      out.translated = true;
    }
    return out;
  }

  /** "Kreis → its Land (Bayern)". */
  function toRegion(t, r) {
    return _("{district} \u2192 its {region} ({name})", { district: districtWord(t.district_label), region: districtWord(t.region_label),
      name: t.regions.names[t.districts.region[r.district]] });
  }

  function withholdings(r) {
    var T = r.T, t = T.table, p = r.p, out = [];
    if (r.district !== null) {
      if (p.area !== "region") {
        out.push({ attribute: "district", action: "region", label: toRegion(t, r),
          cas: evaluate(r, { D: T.regionMembers[t.districts.region[r.district]] }), change: { area: "region" } });
      }
      out.push({ attribute: "district", action: "country", label: _("{district} \u2192 whole country", { district: districtWord(t.district_label) }), cas: evaluate(r, { D: null }), change: { district: null, area: "district" } });
    }
    if (p.sex) out.push({ attribute: "sex", action: "withhold", label: _("withhold sex"), cas: evaluate(r, { S: [true, true] }), change: { sex: null } });
    if (p.ages && p.ages.length) out.push({ attribute: "age", action: "withhold", label: _("withhold age"), cas: evaluate(r, { A: r.A.map(function () { return true; }) }), change: { ages: [] } });
    if (p.height) out.push({ attribute: "height", action: "withhold", label: _("withhold height"), cas: evaluate(r, { h: null }), change: { height: null } });
    if (p.weight) out.push({ attribute: "weight", action: "withhold", label: _("withhold weight"), cas: evaluate(r, { w: null }), change: { weight: null } });
    r.aux.forEach(function (fa, k) {
      var rest = r.aux.slice(0, k).concat(r.aux.slice(k + 1));
      out.push({ attribute: fa.id, action: "withhold", label: _("withhold \u201c{fact}\u201d", { fact: fa.name }), cas: evaluate(r, { aux: rest }), change: { auxDrop: k } });
    });
    return out;
  }

  // ------------------------------------------------------------------ advice (core: advise)

  function ladders(r) {
    var T = r.T, t = T.table, p = r.p;
    var area = [{ label: "", D: r.D }];
    if (r.district !== null) {
      if (p.area !== "region") area.push({ label: toRegion(t, r), D: T.regionMembers[t.districts.region[r.district]] });
      area.push({ label: _("{district} \u2192 whole country", { district: districtWord(t.district_label) }), D: null });
    }
    var sex = [{ label: "", S: r.S }];
    if (p.sex) sex.push({ label: _("withhold sex"), S: [true, true] });
    var age = [{ label: "", A: r.A }];
    if (p.ages && p.ages.length) {
      var n = r.A.length;
      [1, 2].forEach(function (step) {
        var grown = r.A.map(function () { return false; });
        r.A.forEach(function (on, a) { if (on) for (var j = Math.max(0, a - step); j < Math.min(n, a + step + 1); j++) grown[j] = true; });
        var last = age[age.length - 1].A;
        if (grown.every(Boolean) || grown.every(function (x, i) { return x === last[i]; })) return;
        age.push({ label: _("widen age to {ages}", { ages: agesLabel(T, grown) }), A: grown });
      });
      age.push({ label: _("withhold age"), A: r.A.map(function () { return true; }) });
    }
    var bands = {};
    ["height", "weight"].forEach(function (kind) {
      var band = p[kind], lad = [{ label: "", band: band }];
      if (band) {
        t.constants.widths.forEach(function (wdt) {
          if (wdt <= band[1] - band[0]) return;
          var nb = widenBand(band, wdt), prev = lad[lad.length - 1].band;
          if (prev && prev[0] === nb[0] && prev[1] === nb[1]) return;
          lad.push({ label: fill(kind === "height" ? _("widen height to {band}") : _("widen weight to {band}"), { band: formatBand(nb, kind) }), band: nb });
        });
        lad.push({ label: kind === "height" ? _("withhold height") : _("withhold weight"), band: null });
      }
      bands[kind] = lad;
    });
    return [area, sex, age, bands.height, bands.weight];
  }

  function advise(r, ks, limit) {
    var T = r.T, ns = T.ns, na = T.na, K = ns * na, G = T.G;
    if (limit === undefined) limit = 5;
    var L = ladders(r), area = L[0], sex = L[1], age = L[2], hlad = L[3], wlad = L[4];
    var nAux = r.aux.length, nSub = 1 << nAux;
    // mass[area][subset][s,a]; subset bit (nAux-1-j) set = aux j withheld (C order of np.ndindex)
    var mass = area.map(function (lv) {
      var out = [];
      for (var sub = 0; sub < nSub; sub++) {
        var fs = r.aux.filter(function (fa, j) { return !((sub >> (nAux - 1 - j)) & 1); });
        out.push(areaCounts(T, lv.D, fs));
      }
      return out;
    });
    var masks = sex.map(function (sl) { return age.map(function (al) { return selMask(T, sl.S, al.A); }); });
    var P = cellTable(T, hlad.map(function (l) { return l.band; }), wlad.map(function (l) { return l.band; }));
    var nh = hlad.length, nw = wlad.length;
    var B = new Float64Array(K * nh * nw);  // [s,a,i,j]
    for (var k = 0; k < K; k++) for (var i = 0; i < nh; i++) for (var j = 0; j < nw; j++) {
      var t = 0;
      var Pij = P[i][j];
      for (var gi = 0; gi < G; gi++) t += T.W[k * G + gi] * Pij[gi];
      B[(k * nh + i) * nw + j] = t;
    }
    var dims = [area.length].concat(new Array(nAux).fill(2)).concat([sex.length, age.length, nh, nw]);
    var total = dims.reduce(function (x, y) { return x * y; }, 1);
    var cas = new Float64Array(total);
    var idx = new Array(dims.length).fill(0);
    for (var flat = 0; flat < total; flat++) {
      var x = idx[0], sub = 0;
      for (var q = 0; q < nAux; q++) sub = sub * 2 + idx[1 + q];
      var sl = idx[1 + nAux], al = idx[2 + nAux], hl = idx[3 + nAux], wl = idx[4 + nAux];
      var m = mass[x][sub], mk = masks[sl][al], c = 0;
      for (var k2 = 0; k2 < K; k2++) c += m[k2] * mk[k2] * B[(k2 * nh + hl) * nw + wl];
      cas[flat] = c;
      for (var ax = dims.length - 1; ax >= 0; ax--) { if (++idx[ax] < dims[ax]) break; idx[ax] = 0; }
    }
    var strides = dims.map(function (_, a) { return dims.slice(a + 1).reduce(function (x, y) { return x * y; }, 1); });
    var current = evaluate(r, {});
    var names = r.aux.map(function (fa) { return fa.name; });
    return ks.map(function (k) {
      k = Number(k);
      if (current >= k) return { k: k, cas: current, met: true, options: [] };
      var options = [];
      var ix = new Array(dims.length).fill(0);
      for (var f = 0; f < total; f++) {
        if (cas[f] >= k) {
          var minimal = true;
          for (var a = 0; a < dims.length && minimal; a++) if (ix[a] > 0 && cas[f - strides[a]] >= k) minimal = false;
          if (minimal) {
            var changes = [];
            var lv = [[area, ix[0]], [sex, ix[1 + nAux]], [age, ix[2 + nAux]], [hlad, ix[3 + nAux]], [wlad, ix[4 + nAux]]];
            lv.forEach(function (pair) { if (pair[1]) changes.push(pair[0][pair[1]].label); });
            var kept = [];
            for (var j2 = 0; j2 < nAux; j2++) { if (ix[1 + j2]) changes.push(_("withhold \u201c{fact}\u201d", { fact: names[j2] })); else kept.push(j2); }
            var value = cas[f];
            options.push({ changes: changes, cas: value, bits: current > 0 ? Math.log2(value / current) : Infinity,
              levels: ix.slice() });
          }
        }
        for (var ax2 = dims.length - 1; ax2 >= 0; ax2--) { if (++ix[ax2] < dims[ax2]) break; ix[ax2] = 0; }
      }
      options.sort(function (x, y) { return (x.bits - y.bits) || (x.cas - y.cas) || (x.changes.length - y.changes.length); });
      return { k: k, cas: current, met: false, options: limit ? options.slice(0, limit) : options };
    });
  }

  // ------------------------------------------------------------------ re-identification (core: reidentification.py)

  function reidentification(lam, N, users, ks) {
    var p = Math.min(1, lam / N);
    var xi = p >= 1 ? (N <= 1 ? 1 : 0) : Math.exp((N - 1) * Math.log1p(-p));
    var kappa = p === 0 ? 1 : (p >= 1 ? 1 / N : -Math.expm1(N * Math.log1p(-p)) / (N * p));
    var out = { cas: lam, population: N, p: p, uniqueness: xi, correctness: kappa, correct_guess: 1 / Math.max(lam, 1),
      users: users === null || users === undefined ? null : users, k_indistinguishable: {},
      expected_anonymity_set: Math.max(1, 1 + (N - 1) * p) };
    out.others = out.expected_anonymity_set - 1;
    if (out.users !== null) (ks || [2, 5, 10]).forEach(function (k) { out.k_indistinguishable[String(k)] = binomSf(k - 2, users - 1, p); });
    return out;
  }

  /** Pr[Binomial(n, p) > x] (scipy.stats.binom.sf), accurate in both tails for small x. */
  function binomSf(x, n, p) {
    if (x < 0) return 1;
    if (x >= n) return 0;
    if (p <= 0) return 0;
    if (p >= 1) return 1;
    var lq = Math.log1p(-p), r = p / (1 - p);
    // cdf = Σ_{j≤x} pmf(j), pmf(0) = (1-p)^n
    var term = Math.exp(n * lq), cdf = term, terms = [term];
    for (var j = 0; j < x; j++) { term = term * (n - j) / (j + 1) * r; cdf += term; terms.push(term); }
    if (cdf < 0.5 || !(cdf > 0)) {
      if (!(cdf > 0)) {
        // (1-p)^n underflows: the lower tail is negligible
        return 1;
      }
      return 1 - cdf;
    }
    // upper tail directly: Σ_{j>x} pmf(j)
    var lc = 0;
    for (var i = 0; i < x + 1; i++) lc += Math.log(n - i) - Math.log(i + 1);
    var t = Math.exp(lc + (x + 1) * Math.log(p) + (n - x - 1) * lq), sf = 0;
    for (var jj = x + 1; jj <= n; jj++) {
      sf += t;
      if (t <= sf * 1e-17 || jj - x > 100000) break;
      t = t * (n - jj) / (jj + 1) * r;
    }
    return sf;
  }

  // ------------------------------------------------------------------ everything at once

  /** The report the personal page shows (core: profile_report(...).to_dict(max_districts=None)). */
  function report(T, profile, opts) {
    opts = opts || {};
    var r = resolve(T, profile);
    var res = computeCas(r);
    var wi = whatIfs(r);
    var ks = opts.ks && opts.ks.length ? opts.ks : T.table.constants.default_ks;
    res.reidentification = reidentification(res.cas, res.population, opts.users, [2, 5, 10]);
    res.expected_anonymity_set = res.reidentification.expected_anonymity_set;
    res.others = res.reidentification.others;
    res.advice = advise(r, ks, 5);
    res.what_ifs = wi;
    res.body_model = T.table.model;
    return res;
  }

  var api = {
    prepare: prepare, report: report, resolve: resolve, computeCas: computeCas, whatIfs: whatIfs, advise: advise,
    reidentification: reidentification, binomSf: binomSf, widenBand: widenBand, userFraction: userFraction,
    formatCount: formatCount, formatPercent: formatPercent, formatPeople: formatPeople, formatBand: formatBand,
    formatAgeBand: formatAgeBand, g: g, ownHeadline: ownHeadline, verdict: verdict, hasAnswer: hasAnswer, firstQuestion: firstQuestion, adultHeightRefusal: adultHeightRefusal, EngineError: EngineError, SEXES: SEXES,
    useText: useText, shortNumber: shortNumber, logTicks: logTicks, tenths: tenths,
    _: _, ngettext: ngettext, fill: fill, localNumber: localNumber, percentText: percentText, lang: lang, districtWord: districtWord, bodySourceWarning: bodySourceWarning,
  };
  if (typeof module !== "undefined" && module.exports) module.exports = api;
  else root.AnonSetEngine = api;
})(typeof window !== "undefined" ? window : this);
