/* The personal page's clientside callbacks (issue 15): the answers never leave this tab.
 *
 * loadTable fetches the public table of a country, band widths and body model (the same
 * for every visitor) once; compute parses the answers, runs window.AnonSetEngine on the
 * table and draws every result.  Bad input clears the result and says what is wrong.
 *
 * The page and this file share one named field contract (dashboard/views/personal.py FIELDS and
 * CALLBACKS, shipped in the page config as config.fields): each callback reads its values as an
 * object keyed by field name and returns an object keyed by output name.  The words and number
 * rules come from dashboard/core/text through the engine (config.text); the address bar is written
 * by the one URL sync, window.anonset.syncUrl (assets/url_sync.js).  Unit tests:
 * tests/js/personal_page.test.js.
 */
(function () {
  "use strict";

  var TABLES = {};     // key → prepared table
  var CONFIG = null;   // the page config last handed over (its country names in the page's language)
  var PENDING = {};    // key → Promise
  var LAST_MS = null;

  function E() { return window.AnonSetEngine; }
  /* The page's words in its language: the catalogue's translations come with the config (config.text.messages,
     dashboard/core/text client_text); Babel extracts these calls (babel.cfg), so a new one without a translation
     fails tests/core/text/test_catalogues.py. */
  function _(msgid, values) { return E()._(msgid, values); }
  function ngettext(singular, plural, n, values) { return E().ngettext(singular, plural, n, values); }
  function L(x) { return E().localNumber(x); }
  function nu() { return window.dash_clientside.no_update; }

  // ---------------------------------------------------------------- the field contract (views/personal.py)

  /** Dash passes a callback's values by position, the page config last; config.fields[name] (views/personal.py
      CALLBACKS) names them: → {config, a: {field: value}}.  The engine's words come with the config too. */
  function args(name, values) {
    values = Array.prototype.slice.call(values);
    var config = values.pop() || null;
    var a = {};
    if (config) {
      CONFIG = config;
      E().useText(config.text);
      config.fields[name].args.forEach(function (k, i) { a[k] = values[i]; });
    }
    return { config: config, a: a };
  }

  /** {field: value} → the positions Dash expects (no_update for an output not given; a lone output as itself). */
  function outputs(config, name, obj) {
    var names = config.fields[name].outputs;
    Object.keys(obj).forEach(function (k) { if (names.indexOf(k) < 0) throw new Error("personal page: " + name + " has no output " + k); });
    var out = names.map(function (k) { return Object.prototype.hasOwnProperty.call(obj, k) ? obj[k] : nu(); });
    return names.length === 1 ? out[0] : out;
  }

  /** The self-report correction's checkbox value → 1 (on, v2 only) or 0. */
  function srFlag(sr, model) { return model === "v2" && Array.isArray(sr) && sr.indexOf("on") >= 0 ? 1 : 0; }
  function tableKey(country, hw, ww, model, sr) { return [country, hw, ww, model, srFlag(sr, model)].join("|"); }

  // ---------------------------------------------------------------- components as JSON

  function h(type, props, children) {
    props = Object.assign({}, props || {});
    if (children !== undefined) props.children = children;
    return { type: type, namespace: "dash_html_components", props: props };
  }

  // ---------------------------------------------------------------- parsing (dashboard/forms.py rules)

  var CM_PER_INCH = 2.54, KG_PER_LB = 0.45359237;

  function Bad(field, message) { this.field = field; this.message = message; }

  function blank(v) { return v === null || v === undefined || (typeof v === "string" && !v.trim()); }

  function fmtG(x) { return E().g(Math.round(x * 1e6) / 1e6); }

  function number(value, label, field, lo, hi) {
    if (blank(value)) return null;
    var text = String(value).trim().replace(",", ".");  // "162,5" as typed where the comma is the decimal sign
    if (text.length > 40 || !/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(text)) {
      throw new Bad(field, _("{label}: \u201c{value}\u201d is not a number \u2014 type digits, e.g. 172 or 172.5", { label: label, value: String(value).trim().slice(0, 40) }));
    }
    var x = Number(text);
    if (!isFinite(x)) throw new Bad(field, _("{label}: please enter a finite number", { label: label }));
    if ((lo !== null && x < lo) || (hi !== null && x > hi)) {
      throw new Bad(field, _("{label}: {value} is outside the range {lo}\u2013{hi}", { label: label, value: L(fmtG(x)), lo: L(fmtG(lo)), hi: L(fmtG(hi)) }));
    }
    return x;
  }

  /** A band shown back in the units the person typed: "5 ft 6.9 in \u2013 5 ft 8.9 in (170\u2013175 cm)". */
  function inUnitsTyped(kind, band, metric) {
    if (!band) return metric;
    var one = function (x) { return String(Math.round(x * 10) / 10); };
    var ftIn = function (cm) { var inch = Math.round(cm / CM_PER_INCH * 10) / 10, ft = Math.floor(inch / 12 + 1e-9);
      return ft + " ft " + one(inch - 12 * ft) + " in"; };
    var shown = kind === "height" ? ftIn(band[0]) + " \u2013 " + ftIn(band[1])
      : one(band[0] / KG_PER_LB) + "\u2013" + one(band[1] / KG_PER_LB) + " lb";
    return shown + " (" + metric + ")";
  }

  /** What-if rows of height or weight bands labelled in the units the person typed (issue 28: imperial answers
      were shown back in cm and kg): 5′6.9″–5′8.9″, 143.3–154.3 lb; metric rows are returned as they are. */
  function bandsInUnitsTyped(rows, kind, width, units) {
    if (units !== "imperial" || !rows) return rows;
    var one = function (x) { return String(Math.round(x * 10) / 10); };
    var ftIn = function (cm) { var inch = Math.round(cm / CM_PER_INCH * 10) / 10, ft = Math.floor(inch / 12 + 1e-9);
      return ft + "\u2032" + one(inch - 12 * ft) + "\u2033"; };
    return rows.map(function (r) {
      var lo = Number(r.key), hi = lo + width;
      if (!isFinite(lo)) return r;
      var label = kind === "height" ? ftIn(lo) + "\u2013" + ftIn(hi) : one(lo / KG_PER_LB) + "\u2013" + one(hi / KG_PER_LB) + " lb";
      return Object.assign({}, r, { label: label });
    });
  }

  function bandOf(value, width) {
    var lo = Math.floor(value / width + 1e-9) * width;
    return [lo, lo + width];
  }

  /** The band holding a typed value; the range's top value itself (250 cm, which the message names as inside
      "100–250 cm") belongs to the last band starting below it, as the range's bottom value belongs to the first. */
  function bandIn(value, width, limits) {
    if (value === limits[1]) { var lo = Math.ceil(limits[1] / width - 1e-9) * width - width; return [lo, lo + width]; }
    return bandOf(value, width);
  }

  function checkBand(band, kind, field, limits) {
    if (band[0] < limits[0] || band[0] >= limits[1]) {
      throw new Bad(field, E().fill(kind === "height" ? _("Height {band} is outside the range {lo}\u2013{hi} cm") : _("Weight {band} is outside the range {lo}\u2013{hi} kg"),
        { band: E().formatBand(band, kind), lo: L(String(limits[0])), hi: L(String(limits[1])) }));
    }
    return band;
  }

  function parseUserFact(name, text) {
    name = (name || "").trim().slice(0, 60).replace(/[=;]/g, " ") || _("your own fact");
    text = String(text).trim();
    if (text.length > 200) throw new Bad("aux-percent", _("Your own fact: that percentage is too long"));
    if (text.indexOf(":") < 0) {
      var pct = number(text.replace(/%$/, ""), _("Your own fact (%)"), "aux-percent", 0, 100);
      return { name: name, percent: pct };
    }
    var rows = text.split(",").map(function (part) {
      var kv = part.split(":");
      if (kv.length !== 2) throw new Bad("aux-percent", _("Your own fact: write age bands like 18-30:20,30+:5"));
      var band = kv[0].trim(), m, lo, hi;
      if ((m = /^(\d+(?:\.\d+)?)\s*(?:-|\u2013|to)\s*(\d+(?:\.\d+)?)$/.exec(band))) { lo = Number(m[1]); hi = Number(m[2]); }
      else if ((m = /^(\d+(?:\.\d+)?)\s*\+$/.exec(band))) { lo = Number(m[1]); hi = null; }
      else throw new Bad("aux-percent", _("Your own fact: \u201c{band}\u201d is not an age band like 18-30 or 65+", { band: band.slice(0, 20) }));
      if (hi !== null && hi <= lo) throw new Bad("aux-percent", _("Your own fact: age band {band} is not a valid band", { band: band }));
      var p = number(kv[1].trim().replace(/%$/, ""), _("Your own fact (%)"), "aux-percent", 0, 100);
      if (p === null) throw new Bad("aux-percent", _("Your own fact: give a percentage for ages {band}", { band: band }));
      return [lo, hi, p];
    });
    rows.sort(function (a, b) { return a[0] - b[0]; });
    for (var i = 1; i < rows.length; i++) {
      if (rows[i - 1][1] === null || rows[i][0] < rows[i - 1][1]) throw new Bad("aux-percent", _("Your own fact: the age bands overlap"));
    }
    return { name: name, by_age: rows };
  }

  /** The form → an engine profile (or a Bad naming the field). */
  function parseForm(T, a) {
    var t = T.table, lim = t.constants.limits, profile = { area: "district", aux: [] };
    var adult = t.constants.adult_height;  /* what a person may type for an adult (core.body ADULT_HEIGHT_LIMITS) */
    if (!blank(a.district)) {
      if (T.index[a.district] === undefined) throw new Bad("district", _("District: choose one from the list"));
      profile.district = a.district;
    } else profile.district = null;
    profile.sex = a.sex === "female" || a.sex === "male" ? a.sex : null;
    var picked = {};
    (a.ages || []).forEach(function (label) {
      var m = /^5y:(\d+)$/.exec(label);
      if (m) {  // a five-year block of single-year groups (GB)
        var lo = Number(m[1]);
        t.ages.forEach(function (g, i) { if (g.lo >= lo && g.hi !== null && g.hi <= lo + 5) picked[i] = true; });
        return;
      }
      var i = T.ageLabels.indexOf(label);
      if (i < 0) throw new Bad("ages", _("Age group: choose from the list"));
      picked[i] = true;
    });
    profile.ages = Object.keys(picked).map(Number).sort(function (x, y) { return x - y; });
    var height = null, weight = null;
    if (a.units === "imperial") {
      var ft = number(a.hft, _("Height (feet)"), "height-ft", 0, 9);
      var inch = number(a.hin, _("Height (inches)"), "height-in", 0, 120);
      if (ft !== null || inch !== null) {
        if (ft && inch !== null && inch >= 12) throw new Bad("height-in", _("Height (inches): with feet given, inches run from 0 to 11"));
        height = ((ft || 0) * 12 + (inch || 0)) * CM_PER_INCH;
        if (height < adult[0] || height > adult[1]) {  /* core/text's one refusal, in the units typed */
          throw new Bad(ft !== null ? "height-ft" : "height-in", E().adultHeightRefusal(Math.round(height / CM_PER_INCH),
            Math.ceil(adult[0] / CM_PER_INCH), Math.floor(adult[1] / CM_PER_INCH), _("inches")));
        }
      }
      var lb = number(a.wlb, _("Weight (lb)"), "weight-lb", lim.weight[0] / KG_PER_LB, lim.weight[1] / KG_PER_LB);
      weight = lb === null ? null : lb * KG_PER_LB;
    } else {
      height = number(a.hcm, _("Height (cm)"), "height-cm", null, null);
      if (height !== null && (height < adult[0] || height > adult[1])) {
        throw new Bad("height-cm", E().adultHeightRefusal(height, adult[0], adult[1], "cm"));
      }
      weight = number(a.wkg, _("Weight (kg)"), "weight-kg", lim.weight[0], lim.weight[1]);
    }
    var hf = a.units === "imperial" ? "height-ft" : "height-cm", wf = a.units === "imperial" ? "weight-lb" : "weight-kg";
    profile.height = height === null ? null : checkBand(bandIn(height, t.hw, lim.height), "height", hf, lim.height);
    profile.weight = weight === null ? null : checkBand(bandIn(weight, t.ww, lim.weight), "weight", wf, lim.weight);
    (a.aux || []).forEach(function (id) {
      if (!T.aux[id]) throw new Bad("aux", _("Auxiliary knowledge: unknown choice"));
      profile.aux.push(id);
    });
    if (!blank(a.auxPct)) profile.aux.push(parseUserFact(a.auxName, a.auxPct));
    var users = null;
    if (!blank(a.users)) {
      var m = number(a.users, _("Users of the app"), "users", null, null);
      if (m < 1) throw new Bad("users", _("Users of the app: {value} is not possible \u2014 the app needs at least 1 user (leave the box empty if you do not know)", { value: L(fmtG(m)) }));
      if (m !== Math.floor(m)) throw new Bad("users", _("Users of the app: please enter a whole number"));
      if (m > 8e9) throw new Bad("users", _("Users of the app: more than the world\u2019s population"));
      users = m;
    }
    var ks = (a.ks || []).map(Number).filter(function (k) { return k > 0; });
    return { profile: profile, users: users, ks: ks.length ? ks : t.constants.default_ks };
  }

  // ---------------------------------------------------------------- text

  /** "Small numbers are rough", with AnonLand's measured error (views/personal.py rough_estimate_evidence). */
  function rough(cas, config) {
    var r = (config && config.rough) || { below: 25 };
    if (!(cas < r.below)) return "";
    if (typeof r.share !== "number") return " " + _("Small numbers are rough estimates.");
    return " " + _("Small numbers are rough estimates: in AnonSet\u2019s synthetic-country validation (AnonLand), {share} of the {n} test citizens whose real crowd was under {below} got an estimate more than {threshold} off.",
      { share: E().percentText(String(Math.round(100 * r.share))), n: E().formatCount(r.n), below: E().formatCount(r.below),
        threshold: E().percentText(String(Math.round(100 * r.threshold))) });
  }

  // ---------------------------------------------------------------- figures

  function logTicks(lo, hi) { return E().logTicks(lo, hi); }

  function fontFor(presenter, cfg) {
    var f = Object.assign({}, cfg.style.font);
    f.size = presenter ? 20 : 14;
    if (presenter) f.color = "#000000";
    return f;
  }

  /* The page sizes its charts for presenter mode itself (fontFor, and the heights and title wraps that follow from
     the font): meta.anonset_presenter_fonts tells assets/presenter.js not to enlarge them a second time (a projector's
     what-if titles were cut off and its bars squeezed by 28 px type). */
  function base(extra, font) {
    return Object.assign({ font: font, margin: { l: 10, r: 10, t: 40, b: 10 }, paper_bgcolor: "white", plot_bgcolor: "white",
      hoverlabel: { font: { size: font.size } }, meta: { anonset_presenter_fonts: true },
      separators: (CONFIG && CONFIG.style.separators) || ".," }, extra);
  }

  function stepName(step) {
    return { country: _("Country"), district: _("District"), sex: _("Sex"), age: _("Age"), height: _("Height"),
      weight: _("Weight") }[step];
  }

  /** "female"/"male" (the table's codes) in the page's words; anything else as it is (a band, "any"). */
  function sexWord(v) { return v === "female" ? _("female") : v === "male" ? _("male") : v; }

  /** "People aged 18+ in Germany". */
  function crowdOf(t, where) {
    var names = (CONFIG && CONFIG.country_names) || {};
    return _("People aged {ages} in {where}", { ages: studyLabel(t), where: names[t.code] || where });
  }

  /** "<b>12</b> people" (a hover's count, Plotly's markup). */
  function peopleBold(x) {
    if (!(x >= 1)) return _("<b>fewer than one</b> person");
    return ngettext("<b>{count}</b> person", "<b>{count}</b> people", Math.floor(x), { count: E().formatCount(x) });
  }

  function studyLabel(t) { return E().formatAgeBand(t.study[0], t.study[1] === null ? Infinity : t.study[1]); }

  /** The funnel's steps as shown: a national-only data set's one "district" is the country itself, so that
   *  step (the same number as the country's) is left out; the page says why in one line above the funnel. */
  function shownFunnel(res, t) {
    var national = (t.districts && t.districts.names && t.districts.names.length <= 1);
    return national ? res.funnel.filter(function (l) { return l.step !== "district"; }) : res.funnel;
  }

  function funnelFigure(res, t, font, cfg) {
    var lines = shownFunnel(res, t);
    var labels = lines.map(function (l) {
      if (l.step === "country") return _("All {ages}", { ages: studyLabel(t) });
      return l.step === "auxiliary" ? (l.value.length > 16 ? l.value.slice(0, 15) + "\u2026" : l.value) : stepName(l.step);
    });
    var counts = lines.map(function (l) { return Math.max(l.count, 1e-3); });
    var text = lines.map(function (l) { return l.count < 1 ? "<1" : E().formatCount(l.count); });
    var hover = lines.map(function (l) {
      var what = l.step === "country" ? crowdOf(t, l.value) : (stepName(l.step) || _("Also known")) + ": " + sexWord(l.value);
      return what + "<br>" + peopleBold(l.count);
    });
    var colours = lines.map(function (_, i) { return i === lines.length - 1 ? cfg.style.highlight : cfg.style.bar; });
    var lo = Math.min.apply(null, counts), hi = Math.max.apply(null, counts);
    var ticks = logTicks(Math.pow(10, Math.floor(Math.log10(lo))), hi);
    /* at most 7 labels, 4 on a phone (7 tilted into each other at 390 px), level */
    var step = Math.ceil(ticks[0].length / ((window.innerWidth || 900) <= 600 ? 4 : 7));
    var tv = ticks[0].filter(function (_, i) { return i % step === 0; }), tt = ticks[1].filter(function (_, i) { return i % step === 0; });
    return { data: [{ type: "bar", x: counts, y: labels, orientation: "h", marker: { color: colours }, text: text,
        textposition: "outside", cliponaxis: false, hovertext: hover, hoverinfo: "text" }],
      layout: base({ margin: { l: 10, r: 70, t: 10, b: 50 }, height: 70 + (font.size + 26) * lines.length,
        xaxis: { type: "log", title: { text: _("people (log scale)") }, tickvals: tv, ticktext: tt, tickangle: 0,
          range: [Math.log10(lo) - 0.3, Math.log10(hi) + 1.0], gridcolor: "#e5e9ee", automargin: true },
        yaxis: { autorange: "reversed", automargin: true }, showlegend: false }, font) };
  }

  /* A chart title broken into lines that fit the page's width (plotly never wraps a title: on a 390 px phone a
     one-line title was cut off); returns [text, number of lines]. */
  function wrapTitle(title, font) {
    /* the results column's own width where there is one (a projector's 1280 px window holds a 780 px column) */
    var panel = typeof document !== "undefined" && document.getElementById ? document.getElementById("me-results") : null;
    var width = ((panel && panel.clientWidth) || Math.min(window.innerWidth || 900, 900)) - 60;
    var perLine = Math.max(24, Math.floor(width / (0.68 * (font.size + 1))));  /* DejaVu Sans: ~0.68 em a character */
    var lines = [""];
    String(title).split(" ").forEach(function (w) {
      var cur = lines[lines.length - 1];
      if (cur && (cur + " " + w).length > perLine) lines.push(w); else lines[lines.length - 1] = cur ? cur + " " + w : w;
    });
    return [lines.join("<br>"), lines.length];
  }

  function whatIfFigure(rows, title, opts, font, cfg, model) {
    opts = opts || {};
    var idx = rows.map(function (_, i) { return i; }), gap = false;
    if (opts.maxBars && rows.length > 2 * opts.maxBars + 1) {
      var keep = {};
      for (var i = 0; i < opts.maxBars; i++) { keep[i] = 1; keep[rows.length - 1 - i] = 1; }
      rows.forEach(function (r, j) { if (r.chosen) keep[j] = 1; });
      idx = Object.keys(keep).map(Number).sort(function (a, b) { return a - b; });
      gap = true;
    }
    var horizontal = !!opts.horizontal;
    /* a bar's label, cut (the whole name in its hover): on a phone 30 characters took 60 % of the width, leaving the
       bars 100 px and their axis labels turned on end */
    var longest = (window.innerWidth || 900) <= 600 ? 20 : 30;
    var cats = [], vals = [], colours = [], patterns = [], hover = [];
    var prev = null;
    idx.forEach(function (j) {
      var r = rows[j];
      if (gap && prev !== null && j > prev + 1) {   // a visible gap between the largest and the smallest
        cats.push("\u2026 " + ngettext("{n} more", "{n} more", j - prev - 1, { n: E().formatCount(j - prev - 1) }) + " \u2026"); vals.push(null); colours.push("rgba(0,0,0,0)"); patterns.push(""); hover.push("");
      }
      prev = j;
      var plaus = r.plausible !== false;
      var label = sexWord(String(r.label)) + (opts.unit || "");
      var short = label.length > longest ? label.slice(0, longest - 1) + "\u2026" : label;
      cats.push(gap ? (j + 1) + ". " + short : short);
      vals.push(Math.max(r.cas, 1e-3));
      colours.push(r.chosen ? cfg.style.highlight : (plaus ? cfg.style.bar : cfg.style.muted));
      patterns.push(plaus ? "" : "/");
      hover.push(label + "<br>" + peopleBold(r.cas) +
        (plaus ? "" : "<br>" + _("outside the paper model\u2019s range (BMI)")) + (r.chosen ? " \u2014 " + _("your value") : ""));
    });
    if (rows.some(function (r) { return r.plausible === false; })) title += " \u2014 " + _("hatched: outside the paper model\u2019s range");
    var pos = rows.map(function (r) { return r.cas; }).filter(function (v) { return v > 0; });
    var lo = pos.length ? Math.min.apply(null, pos) : 1, hi = pos.length ? Math.max.apply(null, pos) : 10;
    var ticks = logTicks(lo, hi);
    if (longest < 30 && horizontal) {  /* a phone's narrow bars: the powers of ten only (1-2-5 labels stood on end) */
      var tens = ticks[1].map(function (l, i) { return /^1/.test(l) ? i : -1; }).filter(function (i) { return i >= 0; });
      if (tens.length >= 2) ticks = [tens.map(function (i) { return ticks[0][i]; }), tens.map(function (i) { return ticks[1][i]; })];
    }
    var valueAxis = { type: "log", title: { text: _("people like you"), standoff: 12 }, tickvals: ticks[0], ticktext: ticks[1],
      gridcolor: "#e5e9ee", automargin: true };
    /* every bar labelled (plotly thinned a projector's labels to every other one; each bar has room for its label) */
    var catAxis = { type: "category", automargin: true, tickfont: { size: Math.max(11, font.size - 2) }, tickmode: "linear", tick0: 0, dtick: 1 };
    /* plotly anchors a title of several lines a little above its top: 6 px more room a line keeps it inside */
    var layout, wrapped = wrapTitle(title, font), extra = 8 + (wrapped[1] - 1) * (font.size + 12);
    var titleDict = { text: wrapped[0], x: 0.01, xanchor: "left", y: 1, yref: "container", yanchor: "top", pad: { t: 16 + 6 * (wrapped[1] - 1) },
      font: { size: font.size + 1 } };
    if (horizontal) {
      catAxis.autorange = "reversed";
      valueAxis.side = "top";
      valueAxis.title = { text: "" };
      layout = base({ margin: { l: 10, r: 20, t: 70 + extra, b: 10 }, title: titleDict,
        height: 110 + extra + cats.length * (font.size + 6), bargap: 0.15, xaxis: valueAxis, yaxis: catAxis, showlegend: false }, font);
    } else {
      catAxis.tickangle = cats.length > 8 ? -45 : 0;
      layout = base({ margin: { l: 10, r: 10, t: 40 + extra, b: 10 }, title: titleDict,
        height: 340 + extra, bargap: cats.length < 80 ? 0.08 : 0, yaxis: valueAxis, xaxis: catAxis, showlegend: false }, font);
    }
    if (rows.some(function (r) { return r.chosen; }) && !idx.some(function (j) { return rows[j].chosen; })) {
      layout.annotations = [{ text: _("your value is outside the range shown"), xref: "paper", yref: "paper", x: 1, y: 1.08, showarrow: false,
        font: { size: 12, color: cfg.style.muted } }];
    }
    var bar = { type: "bar", marker: { color: colours, pattern: { shape: patterns } }, hovertext: hover, hoverinfo: "text" };
    if (horizontal) { bar.orientation = "h"; bar.x = vals; bar.y = cats; } else { bar.x = cats; bar.y = vals; }
    return { data: [bar], layout: layout };
  }

  function emptyFigure() { return { data: [], layout: { xaxis: { visible: false }, yaxis: { visible: false }, height: 60 } }; }

  function mapFigure(fig, values, district) {
    if (!fig || !fig.data || !fig.data.length || !values) return nu();
    var byId = {};
    values.forEach(function (r) { byId[r[0]] = r[1]; });
    var ids = fig.data[0].locations || [];
    var vals = ids.map(function (id) { var v = byId[id]; return v === undefined ? NaN : v; });
    var pos = vals.filter(function (v) { return v > 0 && isFinite(v); });
    var out = Object.assign({}, fig, { data: fig.data.slice() });
    var tr = Object.assign({}, fig.data[0]);
    tr.z = vals.map(function (v) { return v > 0 ? Math.log10(v) : null; });
    tr.hovertext = vals.map(function (v) {
      return v >= 1 ? ngettext("{count} person like you", "{count} people like you", Math.floor(v), { count: E().formatCount(v) })
        : _("fewer than one person like you");
    });
    var cb = Object.assign({}, tr.colorbar || {});
    if (pos.length) {
      var tk = logTicks(Math.min.apply(null, pos), Math.max.apply(null, pos));
      cb.tickvals = tk[0].map(Math.log10); cb.ticktext = tk[1];
      tr.zmin = Math.log10(Math.max(Math.min.apply(null, pos), 1e-3)); tr.zmax = Math.log10(Math.max.apply(null, pos));
    }
    tr.colorbar = cb;
    out.data[0] = tr;
    var sel = out.data.findIndex(function (d) { return d.name === "selected district"; });
    var selTrace = { type: "choroplethmap", geojson: tr.geojson, locations: district ? [district] : [], z: district ? [0] : [],
      colorscale: [[0, "rgba(0,0,0,0)"], [1, "rgba(0,0,0,0)"]], showscale: false, marker: { line: { width: 3, color: "#000000" } },
      hoverinfo: "skip", name: "selected district", visible: !!district };
    if (sel >= 0) out.data[sel] = selTrace; else out.data.push(selTrace);
    return out;
  }

  // ---------------------------------------------------------------- cards, tables, advice

  /** A risk card: its name and meaning in words; the measure's symbol and formula, if given, in a details layer
      under it (issue 28: "ξ", "κ" and formulas on the lay page). */
  function card(title, value, explain, formula) {
    var kids = [h("Div", { className: "card-title" }, title), h("Div", { className: "card-value" }, value),
      h("Div", { className: "card-explain" }, explain)];
    if (formula) kids.push(h("Details", { className: "card-formula" }, [h("Summary", {}, _("How it is computed")), h("P", {}, formula)]));
    return h("Div", { className: "card", title: explain, tabIndex: 0 }, kids);
  }

  /** The re-identification cards; the census they rest on is cited once, below them (not on every card). */
  function reidCards(r, t) {
    var P = E().formatPercent;
    var cards = [
      card(_("Correct guess"), P(r.correct_guess), _("Chance that an attacker who matches on these attributes picks you."),
        _("1 / max(CAS, 1), CAS being the people who share your attributes, you included.")),
      card(_("Uniqueness"), P(r.uniqueness, r.p < 1), _("Chance nobody else in the population of {n} shares your attributes.",
        { n: E().formatCount(r.population) }), _("Uniqueness \u03be = (1 \u2212 p)^(N \u2212 1), p = CAS / N (Rocher et al. 2019).")),
      card(_("Correctness"), P(r.correctness), _("Chance exact matching over the whole population identifies you."),
        _("Correctness \u03ba = (1 \u2212 (1 \u2212 p)^N) / (N p), p = CAS / N (Rocher et al. 2019).")),
    ];
    Object.keys(r.k_indistinguishable).sort(function (a, b) { return a - b; }).forEach(function (k) {
      cards.push(card(_("{k}-indistinguishable", { k: E().formatCount(Number(k)) }), P(r.k_indistinguishable[k]),
        ngettext("Chance your record shares its attributes with at least {others} other among the app\u2019s {users} users.",
          "Chance your record shares its attributes with at least {others} others among the app\u2019s {users} users.", k - 1,
          { others: E().formatCount(k - 1), users: E().formatCount(r.users) }),
        _("Pr[Binomial(m \u2212 1, p) \u2265 k \u2212 1], m users, p = CAS / N (Yang et al.).")));
    });
    cards.push(h("P", { className: "field-help cards-source" }, _("All from the census: {publisher}, {table} ({date}).", { publisher: t.source.publisher,
      table: t.source.table_id, date: t.source.reference_date })));
    return cards;
  }

  function people(x) { return E().formatPeople(x); }

  function changesTable(wi) {
    var rows = [[_("Now"), wi.cas]].concat(wi.widen.concat(wi.withhold).map(function (c) { return [c.label, c.cas]; }));
    return h("Table", { className: "table" }, [
      h("Thead", {}, h("Tr", {}, [h("Th", { scope: "col" }, _("Change")), h("Th", { scope: "col", className: "num" }, _("People like you"))])),
      h("Tbody", {}, rows.map(function (r) { return h("Tr", {}, [h("Td", {}, r[0]), h("Td", { className: "num" }, people(r[1]))]); })),
    ]);
  }

  function adviceList(advice) {
    return h("Div", {}, advice.map(function (a) {
      var k = E().formatCount(a.k);
      if (a.met) return h("P", { className: "ok" }, _("k = {k}: already met \u2014 at least {k} people share your attributes.", { k: k }));
      if (!a.options.length) return h("P", { className: "warning" }, _("k = {k}: no combination of widening or withholding reaches {k} people.", { k: k }));
      return h("Div", {}, [h("P", {}, _("To be one of at least {k} people:", { k: k })), h("Ol", {}, a.options.map(function (o) {
        return h("Li", {}, [h("B", {}, o.changes.join("; ")), " \u2192 " + (o.cas >= 1
          ? ngettext("{count} person", "{count} people", Math.floor(o.cas), { count: E().formatCount(o.cas) }) : _("fewer than one person")),
          /* in words first (a crowd N times larger); the information measure in bits only in its tooltip */
          h("Span", { className: "muted", title: isFinite(o.bits) ? _("gives up {bits} bits of information", { bits: L(o.bits.toFixed(1)) }) : "" },
            isFinite(o.bits) ? " " + _("(a crowd {times} times as large)", { times: E().formatCount(Math.pow(2, o.bits)) }) : "")]);
      }))]);
    }));
  }

  /** Warnings whose words are the data set's notes as the core writes them (English, in the public table shared by
      every language): shown as quotations in English, marked lang="en". */
  var QUOTED_IN_ENGLISH = ["body_source", "height_shift", "nearest_body_group", "auxiliary_note"];

  function warningBoxes(res) {
    return res.warnings.map(function (w) {
      var props = { className: w.code === "likely_unique" ? "error" : "warning", "data-code": w.code };
      if (QUOTED_IN_ENGLISH.indexOf(w.code) >= 0 && !w.translated && E().lang() !== "en") props.lang = "en";  // the data set's own words
      return h("Div", props, w.message);
    });
  }

  // ---------------------------------------------------------------- field marks (aria-invalid)

  var FIELDS = ["district", "ages", "height-cm", "height-ft", "height-in", "weight-kg", "weight-lb", "aux-percent", "users"];

  /** Mark the field at fault (aria-invalid) and show the message under it, where the person is typing (the
      answer panel says it too); every other field is cleared.  React leaves attributes it does not manage alone. */
  function markInvalid(field, message) {
    FIELDS.forEach(function (f) {
      var el = document.getElementById("me-" + f);
      if (!el) return;
      var input = el.tagName === "INPUT" ? el : el.querySelector("input");
      (input ? [input, el] : [el]).forEach(function (node) {
        if (f === field) node.setAttribute("aria-invalid", "true"); else node.removeAttribute("aria-invalid");
      });
      if (input) {
        if (f === field) input.setAttribute("aria-describedby", "me-message"); else if (input.getAttribute("aria-describedby") === "me-message") input.removeAttribute("aria-describedby");
      }
      var box = el.closest ? el.closest(".field") : null;
      if (box) {
        if (f === field && message) box.setAttribute("data-error", message); else box.removeAttribute("data-error");
      }
    });
  }

  // ---------------------------------------------------------------- the callbacks


  /** No result (loading, a bad answer, a failed table): the named outputs of compute. */
  function cleared(status, message, headlineText, answerClass) {
    return { status: status, message: message, headline: headlineText, verdict: "", warnings: [], funnelText: [],
      later: { figures: [emptyFigure(), emptyFigure(), emptyFigure(), emptyFigure(), emptyFigure(), emptyFigure()],
        reid: [], changes: [], advice: [] },
      mapValues: { key: "", values: [], district: null }, auxNote: nu(), resultsClass: "results-panel cleared",
      answerClass: answerClass || "answer-panel" };
  }

  var ALL_DISTRICTS_UNDER = 600, DISTRICTS_SHOWN = 100, FOLDED = new WeakMap();
  /** Lower case without accents, for matching typed text ("munchen" finds München): core.country.search_fold. */
  function fold(s) { return String(s).normalize("NFD").replace(/[\u0300-\u036f]/g, "").toLowerCase(); }

  // ---------------------------------------------------------------- the district search (core/country/_places.py)

  var SEP = "\n", PLACES = {};  // data set code → its place index, or the Promise of it

  function isWordChar(ch) { return /[\p{L}\p{N}]/u.test(ch); }

  /** 0: the name is what was typed; 1: a word of it starts with it; 2: it contains it; null: no match. */
  function nameTier(name, q) {
    var i = name.indexOf(q);
    if (i < 0) return null;
    if (name === q) return 0;
    while (i >= 0) {
      if (i === 0 || !isWordChar(name.charAt(i - 1))) return 1;
      i = name.indexOf(q, i + 1);
    }
    return 2;
  }

  /** [tier, 0 if the first name reaches it else 1], or null (core.country candidate_tier). */
  function candidateTier(c, q, words) {
    var best = null;
    if (c.joined.indexOf(q) >= 0) {
      for (var i = 0; i < c.names.length; i++) {
        var t = nameTier(c.names[i], q);
        if (t !== null && (best === null || t < best[0])) { best = [t, i === 0 ? 0 : 1]; if (t === 0) break; }
      }
    }
    if (best === null && words.length > 1 && words.every(function (w) { return c.joined.indexOf(w) >= 0; })) best = [3, 1];
    return best;
  }

  function candidate(names) { names = names.map(fold); return { names: names, joined: names.join(SEP) }; }

  /** The folded names of a data set's districts and places, computed once per list. */
  function foldedOf(list, namesOf) {
    var f = FOLDED.get(list);
    if (!f) { f = list.map(function (x) { return candidate(namesOf(x)); }); FOLDED.set(list, f); }
    return f;
  }

  function cmpKey(a, b) {
    for (var i = 0; i < a.length; i++) { if (a[i] < b[i]) return -1; if (a[i] > b[i]) return 1; }
    return 0;
  }

  /** core.country.rank_districts: the options for what is typed, best first ({options, matched}). */
  function rankDistricts(query, districts, places, word, limit) {
    var words = fold(query).split(/\s+/).filter(Boolean), q = words.join(" ");
    if (!q) return { options: [], matched: 0 };
    var byId = {}, best = {};
    districts.forEach(function (d) { byId[d.value] = d; });
    var fd = foldedOf(districts, function (d) { return [d.label].concat(String(d.search || "").split(" | ")); });
    var offer = function (key, option) {
      var old = best[option.value];
      if (!old || cmpKey(key, old.key) < 0) best[option.value] = { key: key, option: option };
    };
    districts.forEach(function (d, i) {
      var found = candidateTier(fd[i], q, words);
      if (found !== null) offer([found[0], 0, 0, -(d.pop || 0), d.label], { value: d.value, label: d.label, tier: found[0], place: null });
    });
    var fp = foldedOf(places, function (p) { return [p[0]].concat(p[1] ? String(p[1]).split("|") : []); });
    places.forEach(function (p, i) {
      var d = byId[p[2]];
      if (!d) return;
      var found = candidateTier(fp[i], q, words);
      if (found === null) return;
      var t = found[0];
      if (p[4]) offer([t, found[1], 0, -(d.pop || 0), d.label], { value: d.value, label: d.label, tier: t, place: null });
      else {
        var label = _("{place} is part of {district}, published as one {word}",
                      { place: p[0], district: d.name || d.label, word: E().districtWord(word) });
        offer([t, found[1], 1, -(p[3] || 0), label], { value: d.value, label: label, tier: t, place: p[0] });
      }
    });
    var ranked = Object.keys(best).map(function (k) { return best[k]; }).sort(function (a, b) { return cmpKey(a.key, b.key); });
    return { options: ranked.slice(0, limit).map(function (b) { return b.option; }), matched: ranked.length };
  }

  /** A district option as Dash's dropdown takes it (without the search's name and pop). */
  function dropdownOption(o) {
    var out = { label: o.label, value: o.value };
    if (o.search !== undefined) out.search = o.search;
    if (o.disabled) out.disabled = true;
    return out;
  }

  /** A data set's place index: fetched once, the first time a person types in its district box. */
  function placesOf(code) {
    if (PLACES[code]) return PLACES[code];
    PLACES[code] = fetch("/_places/" + encodeURIComponent(code) + ".json", { credentials: "omit", cache: "default" })
      .then(function (resp) { if (!resp.ok) throw new Error("HTTP " + resp.status); return resp.json(); })
      .then(function (body) { PLACES[code] = body; return body; })
      .catch(function () { delete PLACES[code]; return null; });  // the districts alone are searched; a later letter retries
    return PLACES[code];
  }

  /** The answers ({field: value}, views/personal.py ANSWERS and TABLE_SETTINGS) → compute's named outputs. */
  function answer(a, config) {
    var t0 = performance.now();
    var status = a.tableStatus;
    var model = a.model || (config && config.default_model);
    var key = tableKey(a.country, a.hw, a.ww, model, a.sr);
    if (!status || status.key !== key || (status.ok && !TABLES[key])) {
      markInvalid(null);
      return cleared(_("Loading the public tables for this country\u2026"), null, _("Loading\u2026"));
    }
    if (!status.ok && status.missing) {
      return cleared("", h("Div", { className: "error" }, status.error), _("No result: this copy does not hold that table."));
    }
    if (!status.ok) {
      return cleared("", h("Div", { className: "error" }, _("Could not load the public tables ({error}). No result is shown rather than a wrong one \u2014 press Retry.",
        { error: status.error })), _("No result: the tables did not load."));
    }
    var T = TABLES[key], parsed;
    try {
      parsed = parseForm(T, a);
    } catch (e) {
      if (!(e instanceof Bad)) throw e;
      markInvalid(e.field, e.message);
      return cleared("", h("Div", { className: "error" }, e.message), _("No result until the answer marked in the form is fixed."),
        "answer-panel invalid");
    }
    markInvalid(null);
    if (!E().hasAnswer(parsed.profile)) {
      // no attribute yet: ask the first question; no count, funnel or risk card (it would be the whole country)
      return cleared("", null, E().firstQuestion(T.table.districts.ids.length <= 1), "answer-panel empty");
    }
    var res;
    try {
      res = E().report(T, parsed.profile, { users: parsed.users, ks: parsed.ks });
    } catch (e2) {
      return cleared("", h("Div", { className: "error" }, _("Sorry \u2014 this estimate could not be computed: {error}", { error: e2.message || e2 })), _("No result."));
    }
    var t = T.table, font = fontFor(a.presenter === true, config), wi = res.what_ifs;
    var funnelText = shownFunnel(res, t).map(function (l) {
      var label = l.step === "country" ? crowdOf(t, l.value) : sexWord(l.value);
      if (a.units === "imperial" && (l.step === "height" || l.step === "weight")) label = inUnitsTyped(l.step, parsed.profile[l.step], label);
      return h("Li", {}, [h("Span", {}, label + ": "), h("B", {}, people(l.count))]);
    });
    var auxNotes = parsed.profile.aux.map(function (x) {
      var fa = typeof x === "string" ? T.aux[x] : null;
      return fa && fa.note ? h("Li", {}, fa.name + ": " + fa.note) : null;
    }).filter(Boolean);
    var out = {
      status: "",
      message: null,
      headline: E().ownHeadline(res.others),
      verdict: E().verdict(res.cas, res.others, res.reidentification.correctness) + rough(res.cas, config),
      // the body model is a detail of how the number was made: below the answer, not its first line
      warnings: warningBoxes(res).concat([h("P", { className: "field-help body-model" },
        _("Body model: {model}.", { model: (config.model_labels || {})[t.model] || t.model }))]),
      funnelText: funnelText,
      later: { figures: [funnelFigure(res, t, font, config),
         whatIfFigure(wi.district, _("People like you in other {districts}: the 25 largest and the 25 smallest", { districts: E().districtWord(t.district_label, true, t.district_label_plural) }), { maxBars: 25, horizontal: true }, font, config, t.model),
         whatIfFigure(wi.age, _("Other age groups"), {}, font, config, t.model),
         whatIfFigure(bandsInUnitsTyped(wi.height, "height", t.hw, a.units), a.units === "imperial" ?
           _("Other height bands (feet and inches)") : _("Other height bands (cm)"), {}, font, config, t.model),
         whatIfFigure(bandsInUnitsTyped(wi.weight, "weight", t.ww, a.units), a.units === "imperial" ?
           _("Other weight bands (lb)") : _("Other weight bands (kg)"), {}, font, config, t.model),
         whatIfFigure(wi.sex, _("The other sex"), {}, font, config, t.model)],
        reid: reidCards(res.reidentification, t), changes: changesTable(wi), advice: adviceList(res.advice) },
      mapValues: { key: key, district: parsed.profile.district, values: wi.district.map(function (r) { return [r.key, r.cas]; }) },
      auxNote: auxNotes.length ? h("Ul", {}, auxNotes) : null,
      resultsClass: "results-panel",
      answerClass: "answer-panel",
    };
    LAST_MS = performance.now() - t0;
    window.__anonsetLastCompute = { ms: LAST_MS, at: performance.now(), start: t0 };
    return out;
  }

  /* A public table; a server busy building another visitor's table answers 503 with Retry-After: wait and
     ask again (a few times, never longer than TABLE_RETRY_MAX_S each) before the page shows the error. */
  var TABLE_RETRIES = 4, TABLE_RETRY_MAX_S = 8;
  function fetchTable(url, attempt) {
    return fetch(url, { credentials: "omit", cache: "default" }).then(function (resp) {
      if (resp.status === 503 && attempt < TABLE_RETRIES) {
        var wait = Math.min(TABLE_RETRY_MAX_S, Math.max(1, parseFloat(resp.headers.get("Retry-After")) || 2));
        return new Promise(function (resolve) { setTimeout(resolve, wait * 1000); })
          .then(function () { return fetchTable(url, attempt + 1); });
      }
      return resp.json().then(function (body) {
        if (!resp.ok) throw new Error(body && body.error ? body.error : "HTTP " + resp.status);
        return body;
      });
    });
  }

  /** Where a public table is: the server's route (a query names the settings), or in a static copy of AnonSet
      (`anonset export-static`, dashboard/server/static_site.py) the file config.static.tables names for the
      settings — {url}, {missing: why} for a table the copy does not hold, {elsewhere: true} for another
      country (each country is its own static page there). */
  function tableUrl(config, country, model, hw, ww, sr) {
    var st = config.static, v = "v=" + encodeURIComponent(config.v);
    if (!st) {
      return { url: config.tables + encodeURIComponent(country) + ".json?model=" + encodeURIComponent(model) +
        "&hw=" + encodeURIComponent(hw) + "&ww=" + encodeURIComponent(ww) + "&sr=" + sr + "&" + v };
    }
    if (country !== st.country) return { elsewhere: true };
    var file = st.tables[[model, hw, ww, sr].join("|")];
    if (file) return { url: file + "?" + v };
    return { missing: "This static copy of AnonSet holds the tables for " + st.offered + " only, not for a " + hw +
      " cm height band and " + ww + " kg weight band with body model " + model + (sr ? " and the self-report correction" : "") +
      ". Choose one of those, or run AnonSet itself (anonset serve), or on the command line: anonset cas --country " +
      country + " --height-width " + hw + " --weight-width " + ww + " --model " + model + (sr ? " --self-report-correction" : "") + " …" };
  }

  window.dash_clientside = Object.assign({}, window.dash_clientside, {
    anonsetMe: {
      /* fetch the public table (country, widths, model: settings, never answers) once */
      loadTable: function () {
        var c = args("loadTable", arguments), config = c.config, a = c.a;
        if (!config || !a.country) return [nu(), nu()];
        var model = a.model || config.default_model;
        var key = tableKey(a.country, a.hw, a.ww, model, a.sr);
        var done = function (status, retryStyle) { return outputs(config, "loadTable", { tableStatus: status, retryStyle: retryStyle }); };
        if (TABLES[key]) return done({ key: key, ok: true }, { display: "none" });
        var where = tableUrl(config, a.country, model, a.hw, a.ww, srFlag(a.sr, model));
        if (where.elsewhere) return [nu(), nu()];  // a static copy loads another country's own page (syncAddress)
        if (where.missing) return done({ key: key, ok: false, missing: true, error: where.missing }, { display: "none" });
        var url = where.url;
        if (!PENDING[key]) {
          PENDING[key] = fetchTable(url, 0).then(function (table) {
            TABLES[key] = E().prepare(table);
            delete PENDING[key];
            return done({ key: key, ok: true }, { display: "none" });
          }).catch(function (err) {
            delete PENDING[key];
            return done({ key: key, ok: false, error: String(err && err.message || err) }, {});
          });
        }
        return PENDING[key];
      },

      compute: function () {
        var c = args("compute", arguments), config = c.config;
        return outputs(config, "compute", answer(c.a, config));
      },

      /* the charts, the re-identification cards, the changes table and the advice, a frame after the
         headline and the funnel's numbers are drawn (one smaller commit first: the answer shows sooner); each
         chart's box gets its figure's height.  Without it the box's height came from its content: dcc.Graph
         gives a responsive chart "height: 100%", a resize (plotly's relayout to autosize) drops the figure's
         height, and plotly then sizes its container "100%" of that box, 0 px: the chart's 310 px overflowed
         a box of no height onto what follows (seen on a first visit, when the tables came late) */
      drawLater: function (later) {
        if (!later || !later.figures || later.figures.length !== 6) return Array(15).fill(nu());
        var boxes = later.figures.map(function (f) {
          var h = f && f.layout && f.layout.height;
          return h ? { height: h + "px" } : {};
        });
        return new Promise(function (resolve) {
          requestAnimationFrame(function () { setTimeout(function () {
            resolve(later.figures.concat([later.reid, later.changes, later.advice], boxes));
          }, 0); });
        });
      },

      /* colour the map by the answer, a frame after the answer itself is drawn */
      colourMap: function (mv, base) {
        if (!base || !base.figure) return nu();
        var ok = !!(mv && mv.key && mv.key.split("|")[0] === base.code && mv.values && mv.values.length);
        return new Promise(function (resolve) {
          requestAnimationFrame(function () { setTimeout(function () {
            resolve(ok ? mapFigure(base.figure, mv.values, mv.district) : base.figure);
          }, 0); });
        });
      },

      /* the "What if…" tabs: the clicked (or Enter/Space-pressed) tab is shown */
      chooseTab: function () {
        var trig = ((window.dash_clientside.callback_context || {}).triggered || [])[0] || {};
        var keys = ["district", "age", "height", "weight", "sex"];
        var chosen = keys.filter(function (k) { return (trig.prop_id || "").indexOf("me-tab-" + k + ".") === 0; })[0] || "district";
        var sel = keys.map(function (k) { return k === chosen ? "true" : "false"; });
        var cls = keys.map(function (k) { return "tab-button" + (k === chosen ? " selected" : ""); });
        var idx = keys.map(function (k) { return k === chosen ? 0 : -1; });
        var style = keys.map(function (k) { return k === chosen ? {} : { display: "none" }; });
        setTimeout(function () { window.dispatchEvent(new Event("resize")); }, 0);  // the shown chart takes its width
        return sel.concat(cls, idx, style);
      },

      /* metric ↔ imperial: convert the typed values instead of emptying them */
      toggleUnits: function (units, hcm, hft, hin, wkg, wlb) {
        var hide = { display: "none" }, keep = nu();
        var num = function (v) { if (blank(v)) return null; var x = Number(String(v).trim().replace(",", ".")); return isFinite(x) ? x : NaN; };
        if (units === "imperial") {
          var cm = num(hcm), kg = num(wkg), ft = keep, inch = keep, lb = keep;
          if (cm !== null && !isNaN(cm) && blank(hft) && blank(hin)) {
            var totalIn = Math.round(cm / CM_PER_INCH);
            ft = String(Math.floor(totalIn / 12)); inch = String(totalIn % 12);
          }
          if (kg !== null && !isNaN(kg) && blank(wlb)) lb = String(Math.round(kg / KG_PER_LB));
          return [hide, {}, keep, ft, inch, keep, lb];
        }
        var f = num(hft), i = num(hin), p = num(wlb), outCm = keep, outKg = keep;
        if ((f !== null || i !== null) && !isNaN(f) && !isNaN(i) && blank(hcm)) outCm = String(Math.round(((f || 0) * 12 + (i || 0)) * CM_PER_INCH));
        if (p !== null && !isNaN(p) && blank(wkg)) outKg = String(Math.round(p * KG_PER_LB));
        return [{}, hide, outCm, keep, keep, outKg, keep];
      },

      districtFromMap: function (click) {
        try { return String(click.points[0].location); } catch (e) { return nu(); }
      },

      clearOnCountry: function () { return [null, [], []]; },

      /* ?country=… only; an opened link's #fragment follows the edits (so a reload shows what the address claims) */
      syncAddress: function () {
        var c = args("syncAddress", arguments), a = c.a;
        var keep = new URLSearchParams(), q = new URLSearchParams(window.location.search);
        if (a.country) keep.set("country", a.country);
        if (q.get("presenter")) keep.set("presenter", q.get("presenter"));
        var st = c.config && c.config.static;
        if (st && a.country && a.country !== st.country) {
          // a static copy: each country is its own page; the answers a new country keeps go along in the #fragment
          var kept = fragmentOf(Object.assign({}, a, { district: null, ages: [], aux: [] }), c.config.fragment).toString();
          window.location.assign("?" + keep.toString() + (kept ? "#" + kept : ""));
          return outputs(c.config, "syncAddress", { urlSync: "" });
        }
        var hash = window.location.hash;
        // a #fragment that arrived (typed, set by a script, back or forward) and the form has not read yet stays as
        // it is: its answers come next, and this form's older answers written over it would lose them
        var unread = window.__meArrivedHash != null && window.__meArrivedHash !== window.__meAppliedHash;
        if (!unread && hash && hash.length > 1 && window.__meFragmentApplied) {
          hash = "#" + fragmentOf(a, c.config.fragment).toString();
          if (hash === "#") hash = "";
        }
        // assets/url_sync.js; the answers only ever go into the #fragment, after the answer is drawn
        window.anonset.syncUrl({ search: keep.toString() ? "?" + keep.toString() : "", hash: hash, keepState: true, later: true });
        return outputs(c.config, "syncAddress", { urlSync: "" });
      },

      linkWithAnswers: function () {
        var c = args("linkWithAnswers", arguments), a = c.a;
        var q = new URLSearchParams();
        if (a.country) q.set("country", a.country);
        // the link opens in the language it was copied in (issue 31)
        var asked = new URLSearchParams(window.location.search).get("lang") || (E().lang() !== "en" ? E().lang() : null);
        if (asked) q.set("lang", asked);
        var f = fragmentOf(a, c.config.fragment);
        var url = window.location.origin + window.location.pathname + "?" + q.toString() + "#" + f.toString();
        if (navigator.clipboard && window.isSecureContext) { navigator.clipboard.writeText(url).catch(function () {}); }
        return outputs(c.config, "linkWithAnswers", { link: url });
      },

      /* the district options for what is typed, best first (rankDistricts: districts and the GeoNames places
         inside them); with nothing typed every district of a small country, of a big one the first SHOWN
         (alphabetically), the chosen one always, and a line saying how many more there are (Dash's dropdown
         indexes each option it holds: 0.2 s for 3,144).  A data set's places are fetched the first time a
         person types in its box (a Promise until they arrive; without them the districts alone are searched). */
      districtOptions: function (search, all, value, country) {
        all = all || [];
        var q = String(search || "").trim();
        var finish = function (places) {
          var chosen = all.filter(function (o) { return o.value === value; })[0] || null, out, matched;
          if (!q) {
            if (all.length <= ALL_DISTRICTS_UNDER) return all.map(dropdownOption);
            out = all.slice(0, DISTRICTS_SHOWN); matched = all.length;
          } else {
            var r = rankDistricts(q, all, places ? places.places : [], places ? places.word : "district", DISTRICTS_SHOWN);
            // Dash's dropdown filters again by its own (accent-sensitive) rule on label and search: the typed text
            // goes into each ranked option's search, so it keeps exactly the options ranked here, in this order
            out = r.options.map(function (o) { return { label: o.label, value: o.value, search: q + " | " + o.label }; });
            matched = r.matched;
          }
          out = out.map(dropdownOption);
          if (chosen && !out.some(function (o) { return o.value === chosen.value; })) out.unshift(dropdownOption(chosen));
          if (matched > DISTRICTS_SHOWN) {
            out.push({ label: _("\u2026 {count} more: type to narrow the list",
                                 { count: E().localNumber((matched - DISTRICTS_SHOWN).toLocaleString("en-US")) }),
                       value: "__more__", disabled: true, search: q });
          }
          return out;
        };
        if (!q || !country) return finish(null);
        var got = placesOf(country);
        return got && typeof got.then === "function" ? got.then(finish) : finish(got);
      },

      /* fill the form from the #fragment of a shared link, or with an example */
      answersFromFragment: function () {
        var c = args("answersFromFragment", arguments), a = c.a, hash = a.hash;
        window.__meAppliedHash = hash || "";  // the form has read this #fragment (syncAddress may now rewrite it)
        var done = function (o) { return outputs(c.config, "answersFromFragment", o); };
        var NU = nu();
        var trig = (window.dash_clientside.callback_context.triggered || [])[0] || {};
        if (trig.prop_id && trig.prop_id.indexOf("example") >= 0) {
          var labels = (a.ageOptions || []).map(function (o) { return o.value; });
          var age = labels.filter(function (l) { return /^(65|60|40)/.test(l); })[0] || labels[Math.floor(labels.length / 2)];
          // a national-only data set has one "district", the country itself: the example leaves it out
          var d = a.district || ((a.districtOptions || []).length > 1 ? a.districtOptions[0].value : null) || NU;
          return done({ sex: "female", ages: age ? [age] : [], units: "metric", hcm: "162", hft: null, hin: null, wkg: "72",
            wlb: null, hw: 5, ww: 5, aux: [], district: d });
        }
        var q = new URLSearchParams(window.location.search);
        if ((!hash || hash.length < 2) && !q.get("district")) return done({});
        var f = new URLSearchParams((hash || "#").substring(1));
        if (!f.get("district") && q.get("district")) f.set("district", q.get("district"));
        var num = function (k) { var v = f.get(k); return v === null || v === "" ? NU : v; };
        var width = function (k) { var v = Number(f.get(k)); return [1, 2, 5, 10, 20].indexOf(v) >= 0 ? v : NU; };
        var str = function (k, allowed) { var v = f.get(k); return v === null || (allowed && allowed.indexOf(v) < 0) ? NU : v; };
        var notes = [];
        var ages = NU;
        if (f.get("ages")) {
          var valid = (a.ageOptions || []).map(function (o) { return o.value; });
          var asked = f.get("ages").split("|");
          ages = asked.filter(function (x) { return valid.indexOf(x) >= 0; });
          if (ages.length !== asked.length) notes.push(_("The link names age group(s) this country\u2019s census does not have; please choose again."));
        }
        var dist = NU;
        if (f.get("district")) {
          if ((a.districtOptions || []).some(function (o) { return o.value === f.get("district"); })) dist = f.get("district");
          else { dist = null; notes.push(_("Unknown district \u201c{district}\u201d in the link; please choose one.", { district: f.get("district").slice(0, 20) })); }
        }
        window.__meFragmentApplied = !!(hash && hash.length > 1);
        var notice = NU;
        if (notes.length) notice = (a.notice || []).concat(notes.map(function (n) { return h("Div", { className: "warning", role: "status" }, n); }));
        return done({ sex: str("sex", ["female", "male"]), ages: ages, units: str("units", ["metric", "imperial"]),
          hcm: num("hcm"), hft: num("hft"), hin: num("hin"), wkg: num("wkg"), wlb: num("wlb"), hw: width("hw"), ww: width("ww"),
          aux: f.get("aux") ? f.get("aux").split("|") : NU, model: str("model", ["v2", "paper"]),
          sr: f.get("sr") === "1" ? ["on"] : NU, district: dist, notice: notice });
      },
    },
  });

  /** The answers → a link's #fragment (views/personal.py FRAGMENT: these names, in this order). */
  function fragmentOf(a, names) {
    var f = new URLSearchParams();
    names.forEach(function (k) {
      var v = k === "sr" ? (srFlag(a.sr, a.model || "v2") ? "1" : null) : a[k];
      if (v !== null && v !== undefined && v !== "" && !(Array.isArray(v) && !v.length)) f.set(k, Array.isArray(v) ? v.join("|") : v);
    });
    return f;
  }

  // the #fragment a navigation brought (syncAddress leaves it alone until answersFromFragment has read it)
  function fragmentArrived() { window.__meArrivedHash = window.location.hash || ""; }
  if (typeof window.addEventListener === "function") {
    window.addEventListener("popstate", fragmentArrived);
    window.addEventListener("hashchange", fragmentArrived);
  }

  // arrow keys move between the tabs (WAI-ARIA tabs pattern); Enter and Space press the focused button
  document.addEventListener("keydown", function (ev) {
    var tab = ev.target && ev.target.getAttribute && ev.target.getAttribute("role") === "tab" ? ev.target : null;
    if (!tab || ["ArrowRight", "ArrowLeft", "Home", "End"].indexOf(ev.key) < 0) return;
    var tabs = Array.prototype.slice.call(tab.parentNode.querySelectorAll("[role=tab]"));
    var i = tabs.indexOf(tab), n = tabs.length;
    var j = ev.key === "ArrowRight" ? (i + 1) % n : ev.key === "ArrowLeft" ? (i - 1 + n) % n : ev.key === "Home" ? 0 : n - 1;
    ev.preventDefault();
    tabs[j].focus();
    tabs[j].click();
  });

  // a reopened dropdown focuses its selected option, so typing did not search (issue 16): give the
  // search box the focus whenever a dropdown of this page opens, and send typed letters there
  function searchBox() {
    var boxes = Array.prototype.slice.call(document.querySelectorAll("input.dash-dropdown-search"));
    return boxes.filter(function (b) { return b.offsetParent !== null; })[0] || null;
  }
  document.addEventListener("click", function (ev) {
    // mouse clicks only (detail > 0): a keyboard-opened dropdown already focuses its search box
    if (!ev.detail || !ev.target || !ev.target.closest || !ev.target.closest("#me-district, #me-ages, #me-k")) return;
    setTimeout(function () {
      var box = searchBox(), a = document.activeElement;
      if (box && a && a !== box && a.classList && a.classList.contains("dash-options-list-option-checkbox")) box.focus();
    }, 30);
  }, true);
  document.addEventListener("keydown", function (ev) {
    var a = ev.target;
    if (!a || !a.closest || !a.closest(".dash-dropdown-content") || ev.key.length !== 1 || ev.ctrlKey || ev.metaKey) return;
    var box = searchBox();
    if (!box || box === a) return;
    // focus moved during keydown: the browser then types this very letter into the search box, natively,
    // so React's own onChange sees every letter (writing the value ourselves raced its state and lost letters)
    box.focus();
  }, true);

  window.AnonSetPersonal = { rankDistricts: rankDistricts, inUnitsTyped: inUnitsTyped, tableUrl: tableUrl, parseForm: parseForm, logTicks: logTicks, tables: TABLES, answer: answer, fragmentOf: fragmentOf,
    args: args, outputs: outputs, rough: rough, Bad: Bad };
})();
