/* AnonSet shell: accessibility repairs of Dash component markup (served by dashboard/server.py). */
(function () {
  function labelFor(el) {
    if (!el || !el.id) return null;
    var label = document.querySelector('label[for="' + CSS.escape(el.id) + '"]');
    if (label && !label.id) label.id = el.id + "--label";
    return label;
  }
  function nameFromNearbyLabel(el) {
    for (var up = el, i = 0; up && i < 5; up = up.parentElement, i++) {
      var l = labelFor(up.id ? up : null);
      if (l) return l;
      var near = up.parentElement && up.parentElement.querySelector(":scope > label, :scope > .field-label");
      if (near) return near;
    }
    return null;
  }
  function onTabKey(ev) {  /* dcc.Tabs: Enter/Space choose a tab; arrows, Home and End move (and choose) */
    var tab = ev.currentTarget, tabs = Array.prototype.slice.call(tab.parentElement.querySelectorAll(":scope > .tab"));
    var i = tabs.indexOf(tab), next = null;
    if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); tab.click(); return; }
    if (ev.key === "ArrowRight" || ev.key === "ArrowDown") next = tabs[(i + 1) % tabs.length];
    else if (ev.key === "ArrowLeft" || ev.key === "ArrowUp") next = tabs[(i - 1 + tabs.length) % tabs.length];
    else if (ev.key === "Home") next = tabs[0];
    else if (ev.key === "End") next = tabs[tabs.length - 1];
    if (next) { ev.preventDefault(); next.click(); next.focus(); }
  }
  function onModebarKey(ev) {  /* one tab stop per chart: arrows move between the chart's buttons */
    if (["ArrowRight", "ArrowLeft", "Home", "End"].indexOf(ev.key) < 0) return;
    var btns = Array.prototype.slice.call(ev.currentTarget.querySelectorAll(".modebar-btn"));
    var i = btns.indexOf(document.activeElement);
    if (i < 0) return;
    ev.preventDefault();
    var j = ev.key === "Home" ? 0 : ev.key === "End" ? btns.length - 1
      : (i + (ev.key === "ArrowRight" ? 1 : -1) + btns.length) % btns.length;
    btns[i].setAttribute("tabindex", "-1");
    btns[j].setAttribute("tabindex", "0");
    btns[j].focus();
  }
  function repair(root) {
    /* dcc.Tabs renders plain divs: make them a tablist of focusable, keyboard-operable tabs */
    root.querySelectorAll(".tab-container").forEach(function (list) {
      list.setAttribute("role", "tablist");
      var selectedName = "";
      list.querySelectorAll(":scope > .tab").forEach(function (t) {
        var selected = t.classList.contains("tab--selected");
        t.setAttribute("role", "tab");
        t.setAttribute("aria-selected", selected ? "true" : "false");
        if (t.getAttribute("tabindex") !== (selected ? "0" : "-1")) t.setAttribute("tabindex", selected ? "0" : "-1");
        if (selected) selectedName = t.textContent.trim();
        if (!t.__anonsetTab) { t.__anonsetTab = true; t.addEventListener("keydown", onTabKey); }
      });
      var panel = list.parentElement && list.parentElement.querySelector(":scope > .tab-content");
      if (panel) { panel.setAttribute("role", "tabpanel"); panel.setAttribute("aria-label", selectedName); }
    });
    /* a table wider than its box scrolls sideways: keyboard users reach it too (one tab stop, named) */
    root.querySelectorAll(".table-wrap").forEach(function (w) {
      if (w.scrollWidth > w.clientWidth + 1 && !w.hasAttribute("tabindex")) {
        var cap = w.querySelector("caption");
        w.setAttribute("tabindex", "0");
        w.setAttribute("role", "region");
        w.setAttribute("aria-label", ((cap && cap.textContent.trim()) || "Table") + " (scrolls sideways)");
      }
    });
    /* Plotly's modebar: one tab stop per chart (arrows reach the other buttons); a map's canvas is its stop */
    root.querySelectorAll(".modebar").forEach(function (bar) {
      var plot = bar.closest(".js-plotly-plot");
      var isMap = !!(plot && plot.querySelector(".maplibregl-canvas, .mapboxgl-canvas"));
      var btns = bar.querySelectorAll(".modebar-btn");
      var hasStop = false;
      btns.forEach(function (b) { if (b.getAttribute("tabindex") === "0") hasStop = true; });
      btns.forEach(function (b, i) {
        var want = (!isMap && ((hasStop && b.getAttribute("tabindex") === "0") || (!hasStop && i === 0))) ? "0" : "-1";
        if (b.getAttribute("tabindex") !== want) b.setAttribute("tabindex", want);
      });
      if (!bar.__anonsetKeys) { bar.__anonsetKeys = true; bar.addEventListener("keydown", onModebarKey); }
    });
    root.querySelectorAll(".dash-dropdown-wrapper").forEach(function (w) {
      var target = w.querySelector(":scope > .dash-dropdown-focus-target"), button = w.querySelector(":scope > button");
      if (target && button && target.getAttribute("tabindex") !== "-1") {
        target.setAttribute("tabindex", "-1");  /* the trigger button itself takes the focus */
        button.setAttribute("tabindex", "0");
      }
    });
    root.querySelectorAll('.dash-options-list[role="listbox"]').forEach(function (list) {
      list.setAttribute("role", list.querySelector('input[type="radio"]') ? "radiogroup" : "group");
      list.querySelectorAll('[role="option"]').forEach(function (o) { o.removeAttribute("role"); o.removeAttribute("aria-selected"); });
      if (!list.getAttribute("aria-label") && !list.getAttribute("aria-labelledby")) {
        var l = labelFor(list);
        if (l) list.setAttribute("aria-labelledby", l.id);
      }
    });
    root.querySelectorAll('[role="slider"]:not([aria-label]):not([aria-labelledby])').forEach(function (h) {
      var l = nameFromNearbyLabel(h);
      h.setAttribute("aria-label", ((l && l.textContent.trim()) || "value") + " (slider)");
    });
    root.querySelectorAll('input[type="file"]:not([aria-label])').forEach(function (input) {
      var box = input.parentElement;  /* dcc.Upload: the drop box's own text names its hidden file input */
      input.setAttribute("aria-label", ((box && box.textContent.trim()) || "Choose a file"));
    });
    var pages = {"first-page": "First page", "previous-page": "Previous page", "next-page": "Next page", "last-page": "Last page"};
    root.querySelectorAll(".previous-next-container button:not([aria-label])").forEach(function (b) {
      for (var cls in pages) { if (b.classList.contains(cls)) b.setAttribute("aria-label", pages[cls]); }
    });
  }
  var queued = false;
  function schedule() {
    if (queued) return;
    queued = true;
    window.requestAnimationFrame(function () { queued = false; repair(document); });
  }
  new MutationObserver(schedule).observe(document.documentElement,
    {childList: true, subtree: true, attributes: true, attributeFilter: ["class", "tabindex"]});  /* React may reset a repaired tabindex */
  schedule();
})();
