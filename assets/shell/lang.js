/* The page's language (issue 31), loaded in <head> before Dash's renderer.
 *
 * The server writes <html lang="de" data-asked="de" data-translated="/ /explore">: the language shown, the one
 * asked for and the pages translated so far.  Every request the renderer makes (layout, callbacks) carries the
 * first two as headers, so a callback answers in its own tab's language (the server sends no Referer and
 * keeps no per-visitor state; two tabs may speak two languages).
 *
 * A link to a page whose language would differ (a translated page from an English-only one, or back) loads the
 * page afresh, so the shell and the page are never in two languages; the switch keeps the address (and its
 * #fragment: the personal page's answers) and changes only ?lang=.
 */
(function () {
  "use strict";
  var html = document.documentElement;
  var shown = html.getAttribute("lang") || "en";
  var asked = html.getAttribute("data-asked") || shown;
  var translated = (html.getAttribute("data-translated") || "/").split(" ");

  var plainFetch = window.fetch.bind(window);
  window.fetch = function (resource, init) {
    var url = typeof resource === "string" ? resource : (resource && resource.url) || "";
    if (/\/_dash-(update-component|layout)(\?|$)/.test(url)) {
      init = Object.assign({}, init || {});
      var headers = new Headers(init.headers || {});
      headers.set("X-AnonSet-Lang", shown);
      headers.set("X-AnonSet-Asked", asked);
      init.headers = headers;
    }
    return plainFetch(resource, init);
  };

  function isTranslated(path) { return translated.indexOf("/" + path.replace(/^\/+|\/+$/g, "")) >= 0; }

  /** The language a page at ``path`` is shown in when ``asked`` is asked for. */
  function languageFor(path) { return isTranslated(path) ? asked : "en"; }

  document.addEventListener("click", function (e) {
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    var a = e.target && e.target.closest ? e.target.closest("a[href]") : null;
    if (!a || (a.target && a.target !== "_self")) return;
    var url;
    try { url = new URL(a.getAttribute("href"), window.location.href); } catch (err) { return; }
    if (url.origin !== window.location.origin) return;
    var choice = a.getAttribute("data-lang");
    if (choice) {  // the switch: this address in another language
      url = new URL(window.location.href);
      url.searchParams.set("lang", choice);
    } else if (languageFor(url.pathname) === shown) {
      return;  // same language: Dash's own navigation
    }
    e.preventDefault();
    e.stopPropagation();
    window.location.assign(url.toString());
  }, true);
})();
