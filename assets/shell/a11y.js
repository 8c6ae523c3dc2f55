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
  function repair(root) {
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
  new MutationObserver(schedule).observe(document.documentElement, {childList: true, subtree: true});
  schedule();
})();
