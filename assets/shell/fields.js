/* Bad input, on every page: while an error message (".error") about a field is on screen, that field is
   marked aria-invalid="true" and described by the message; the mark goes when the message goes.

   Which field: the one the message names ("Ages: give …", "Gallery size 9000 is larger …": the leading
   words of the message against the field's label), else an error holder's data-field="<ids>", else the
   field the person changed last.  A page that marks its own fields opts out (OWN_MARKS).

   No stale result looks current: while such an error shows, the results it concerns (charts, cards,
   tables) are greyed with the class "anonset-stale" — every result on the page, or those inside the
   elements named by data-results="<ids>" on the error's holder (a named element with no result inside, such
   as a list of columns, is greyed as a whole).  Result sentences (".verdict") and export buttons
   (".result-exports") count as results; the buttons inside a greyed result are disabled, not silently dead.
   A page may clear them itself. */
(function () {
  var OWN_MARKS = ".personal-grid, [data-own-validation]";
  var STOP = {the: 1, a: 1, an: 1, please: 1, choose: 1, give: 1, enter: 1, of: 1, your: 1};
  var RESULTS = ".js-plotly-plot, .card, .table-wrap, .dash-table-container, table, .verdict, .result-exports";
  var CONTROLS = "input, textarea, select, .dash-dropdown";
  var lastEdited = null, seq = 0;

  function visible(el) {
    if (!el || !el.isConnected) return false;
    var r = el.getBoundingClientRect();
    return (r.width > 0 || r.height > 0) && getComputedStyle(el).visibility !== "hidden";
  }

  function words(text) {
    return (text || "").toLowerCase().replace(/\(.*?\)/g, " ").split(/[^a-z0-9κξφ]+/).filter(Boolean)
      .map(function (w) { return w.length > 3 ? w.replace(/s$/, "") : w; });
  }

  function labelText(el) {
    if (el.id) {
      var lab = document.querySelector('label[for="' + (window.CSS && CSS.escape ? CSS.escape(el.id) : el.id) + '"]');
      if (lab) return lab.textContent;
    }
    if (el.getAttribute("aria-label")) return el.getAttribute("aria-label");
    var f = el.closest(".field, label");
    var l = f && f.querySelector(".field-label, label");
    return l ? l.textContent : "";
  }

  function controls(root) {
    return Array.prototype.slice.call(root.querySelectorAll("input, textarea")).filter(function (el) {
      var t = (el.type || "").toLowerCase();
      return !el.readOnly && !el.disabled && ["hidden", "checkbox", "radio", "file", "button", "submit"].indexOf(t) < 0
        && !el.closest(".dash-dropdown, .dash-dropdown-wrapper, .dash-dropdown-content") && visible(el);
    });
  }

  function score(message, label) {
    /* the number of leading words the message shares with the label ("App users n" ~ "App users n: …") */
    var m = words(message), l = words(label), n = 0;
    while (n < m.length && n < l.length && m[n] === l[n]) n++;
    if (n === 0 || (n === 1 && STOP[m[0]])) return 0;
    return n;
  }

  function fieldsFor(error, candidates) {
    var holder = error.closest("[data-field]");
    if (holder) {
      return holder.getAttribute("data-field").split(/\s+/).map(function (id) { return document.getElementById(id); })
        .filter(Boolean);
    }
    var text = error.textContent.trim(), best = [], top = 0;
    candidates.forEach(function (el) {
      var s = score(text, labelText(el));
      if (s > top) { top = s; best = [el]; } else if (s && s === top) best.push(el);
    });
    if (best.length > 1 && best.indexOf(lastEdited) >= 0) best = [lastEdited];
    if (best.length) return best;
    if (/^sorry/i.test(text) || !lastEdited || candidates.indexOf(lastEdited) < 0) return [];
    return [lastEdited];
  }

  function resultsFor(error, main) {
    var holder = error.closest("[data-results]");
    var scopes = holder ? holder.getAttribute("data-results").split(/\s+/).map(function (id) {
      return document.getElementById(id); }).filter(Boolean) : [main];
    var out = [];
    scopes.forEach(function (scope) {
      var found = Array.prototype.slice.call(scope.querySelectorAll(RESULTS));
      if (scope.matches(RESULTS)) found.unshift(scope);
      if (holder && !found.length && !scope.contains(error)) { out.push(scope); return; }  /* greyed as a whole */
      found.forEach(function (el) {
        if (el.querySelector(CONTROLS) || el.closest(".stale") || el.contains(error) || error.contains(el)) return;
        if (out.some(function (o) { return o.contains(el); })) return;  /* grey the outermost only */
        out.push(el);
      });
    });
    return out;
  }

  function update() {
    var main = document.getElementById("main") || document.body;
    var marked = Array.prototype.slice.call(main.querySelectorAll("[data-anonset-invalid]"));
    var want = [], stale = [];
    if (!main.querySelector(OWN_MARKS)) {
      var candidates = controls(main);
      main.querySelectorAll(".error").forEach(function (error) {
        if (!visible(error) || !error.textContent.trim()) return;
        if (!error.id) error.id = "field-error-" + (++seq);
        if (!error.hasAttribute("role")) error.setAttribute("role", "alert");
        var fields = fieldsFor(error, candidates);
        fields.forEach(function (el) { want.push([el, error.id]); });
        if (fields.length) stale = stale.concat(resultsFor(error, main));
      });
    }
    main.querySelectorAll(".anonset-stale").forEach(function (el) {
      if (stale.indexOf(el) < 0) {
        el.classList.remove("anonset-stale"); el.removeAttribute("aria-disabled");
        var greyed = Array.prototype.slice.call(el.querySelectorAll("button[data-anonset-disabled]"));
        if (el.matches("button[data-anonset-disabled]")) greyed.push(el);
        greyed.forEach(function (b) { b.disabled = false; b.removeAttribute("data-anonset-disabled"); });
      }
    });
    stale.forEach(function (el) {
      if (!el.classList.contains("anonset-stale")) { el.classList.add("anonset-stale"); el.setAttribute("aria-disabled", "true"); }
      var buttons = Array.prototype.slice.call(el.querySelectorAll("button:not([disabled])"));
      if (el.matches("button:not([disabled])")) buttons.push(el);
      buttons.forEach(function (b) { b.disabled = true; b.setAttribute("data-anonset-disabled", ""); });
    });
    var keep = want.map(function (p) { return p[0]; });
    marked.forEach(function (el) {
      if (keep.indexOf(el) >= 0) return;
      el.removeAttribute("aria-invalid");
      var was = el.getAttribute("data-anonset-invalid");
      var desc = (el.getAttribute("aria-describedby") || "").split(/\s+/).filter(function (d) { return d && d !== was; });
      if (desc.length) el.setAttribute("aria-describedby", desc.join(" ")); else el.removeAttribute("aria-describedby");
      el.removeAttribute("data-anonset-invalid");
    });
    want.forEach(function (p) {
      var el = p[0], id = p[1];
      if (el.getAttribute("aria-invalid") !== "true") el.setAttribute("aria-invalid", "true");
      var was = el.getAttribute("data-anonset-invalid");
      var desc = (el.getAttribute("aria-describedby") || "").split(/\s+/).filter(function (d) { return d && d !== was; });
      if (desc.indexOf(id) < 0) desc.push(id);
      if (el.getAttribute("aria-describedby") !== desc.join(" ")) el.setAttribute("aria-describedby", desc.join(" "));
      if (was !== id) el.setAttribute("data-anonset-invalid", id);
    });
  }

  function edited(ev) {
    var el = ev.target;
    if (el && (el.tagName === "INPUT" || el.tagName === "TEXTAREA")) lastEdited = el;
  }
  document.addEventListener("input", edited, true);
  document.addEventListener("change", edited, true);

  var queued = false;
  function schedule() {
    if (queued) return;
    queued = true;
    window.requestAnimationFrame(function () { queued = false; update(); });
  }
  new MutationObserver(schedule).observe(document.documentElement,
    {childList: true, subtree: true, characterData: true, attributes: true, attributeFilter: ["class", "style", "hidden"]});
  schedule();
})();
