/* The navigation marks the page you are on (class "active", aria-current="page") and, where its one row
   scrolls sideways (a phone), scrolls that link into the row's clear middle — never the page itself. */
(function () {
  var shown = null;

  function linkPath(a) {
    try { return new URL(a.getAttribute("href"), window.location.href).pathname.replace(/\/+$/, "") || "/"; }
    catch (e) { return null; }
  }

  function current(links) {
    var here = window.location.pathname.replace(/\/+$/, "") || "/", best = null, bestLen = -1;
    links.forEach(function (a) {
      var p = linkPath(a);
      if (p === null) return;
      var hit = p === here || (p !== "/" && here.indexOf(p + "/") === 0);
      if (hit && p.length > bestLen) { best = a; bestLen = p.length; }
    });
    return best;
  }

  function update() {
    var row = document.querySelector(".navbar .nav-links");
    if (!row) return;
    var links = Array.prototype.slice.call(row.querySelectorAll("a.nav-link"));
    var active = current(links);
    links.forEach(function (a) {
      var on = a === active;
      if (a.classList.contains("active") !== on) a.classList.toggle("active", on);
      if (on && a.getAttribute("aria-current") !== "page") a.setAttribute("aria-current", "page");
      if (!on && a.hasAttribute("aria-current")) a.removeAttribute("aria-current");
    });
    var key = window.location.pathname + "|" + row.clientWidth;
    if (!active || shown === key) return;
    shown = key;
    if (row.scrollWidth > row.clientWidth + 1) {
      /* centre the link in the row (the row's right edge fades out), moving the row only */
      var a = active.getBoundingClientRect(), r = row.getBoundingClientRect();
      var target = row.scrollLeft + (a.left - r.left) - (row.clientWidth - a.width) / 2;
      row.scrollLeft = Math.max(0, Math.min(target, row.scrollWidth - row.clientWidth));
    }
  }

  var queued = false;
  function schedule() {
    if (queued) return;
    queued = true;
    window.requestAnimationFrame(function () { queued = false; update(); });
  }
  window.addEventListener("popstate", schedule);
  window.addEventListener("_dashprivate_pushstate", schedule);
  window.addEventListener("resize", function () { shown = null; schedule(); });
  new MutationObserver(schedule).observe(document.documentElement, {childList: true, subtree: true});
  schedule();
})();
