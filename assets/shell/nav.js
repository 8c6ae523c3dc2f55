/* The navigation marks the page you are on (class "active", aria-current="page") and, where its one row
   scrolls sideways (a phone, where the links have a line of their own), scrolls that link into the row's clear
   middle — never the page itself — and says where more links are: the row's data-more ("left", "right",
   "left right") fades that edge and shows the ‹ / › control there (dashboard/app.py), which scrolls the row
   (a link cut at an edge read as a broken label, "ıe" for "Me", issue 28). */
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
    if (active && shown !== key) {
      shown = key;
      if (row.scrollWidth > row.clientWidth + 1) {
        /* centre the link in the row (clear of the faded edges), moving the row only */
        var a = active.getBoundingClientRect(), r = row.getBoundingClientRect();
        var target = row.scrollLeft + (a.left - r.left) - (row.clientWidth - a.width) / 2;
        row.scrollLeft = Math.max(0, Math.min(target, row.scrollWidth - row.clientWidth));
      }
    }
    mark(row);
  }

  /* which edges of the row have links beyond them (style.css fades those and shows their controls) */
  function mark(row) {
    var more = [];
    if (row.scrollLeft > 1) more.push("left");
    if (row.scrollLeft + row.clientWidth < row.scrollWidth - 1) more.push("right");
    var value = more.join(" ");
    if (row.getAttribute("data-more") !== value) row.setAttribute("data-more", value);
  }

  /* a ‹ / › control scrolls the row by most of its width; delegated, so a re-rendered navbar keeps working */
  document.addEventListener("click", function (e) {
    var b = e.target && e.target.closest ? e.target.closest(".navbar .nav-more") : null;
    var row = b ? document.querySelector(".navbar .nav-links") : null;
    if (!row) return;
    var step = Math.max(80, row.clientWidth * 0.7) * (b.getAttribute("data-edge") === "left" ? -1 : 1);
    row.scrollBy({ left: step, behavior: "smooth" });
  });
  /* scroll events do not bubble: caught on the way down */
  document.addEventListener("scroll", function (e) {
    if (e.target && e.target.classList && e.target.classList.contains("nav-links")) mark(e.target);
  }, { capture: true, passive: true });

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
