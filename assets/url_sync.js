/* The one way AnonSet keeps the address bar in step with a page (issue 25): every page calls
 * window.anonset.syncUrl, directly (the explorer's and the personal page's own callbacks) or through
 * the clientside callback dash_clientside.anonset.syncQuery (a page's "query" store → its hidden
 * url-sync div: buckets, scaling).  No reload, no new history entry.
 *
 * syncUrl({search, hash, path, keepState, later}):
 *   search     "?a=1&b=2", "" for none, undefined to keep the current one (the address's ?lang= is kept);
 *   hash       "#…", "" for none, undefined to keep the current one (the personal page's answers
 *              live only here: fragments are never sent to a server);
 *   path       only while location.pathname starts with it (a page's callback firing as the user
 *              leaves it must not write its query onto the next page);
 *   keepState  keep history.state (default: null, as Dash's own replaceState);
 *   later      write after the current callback returns (setTimeout 0), so the answer is drawn first.
 * Returns true when the address is (or is about to be) changed.
 */
(function (root) {
  "use strict";

  /** A page's new query keeps the address's ?lang= (issue 31: the language is carried in every link and in the
      shareable address); a query naming its own lang keeps that. */
  function withLanguage(search, current) {
    var lang = /[?&]lang=([a-z]{2})(?:&|$)/.exec(current || "");
    if (!lang || /[?&]lang=/.test(search)) return search;
    return (search && search !== "?" ? search + "&" : "?") + "lang=" + lang[1];
  }

  //: The address a "later" write is about to set ({want, keepState}), or null: the latest call wins.  Dash can run
  //: several callbacks in one task, so a later call may come before an earlier call's write has landed; compared
  //: with the address as it still was, it looked unchanged and was dropped, and the earlier (stale) write landed
  //: last (the personal page lost an opened link's answers from its #fragment that way).
  var pending = null;

  function syncUrl(opts) {
    opts = opts || {};
    var loc = root.location, hist = root.history;
    if (!loc || !hist || typeof hist.replaceState !== "function") return false;
    if (opts.path && loc.pathname.indexOf(opts.path) !== 0) return false;
    var search = opts.search === undefined || opts.search === null ? loc.search : withLanguage(opts.search, loc.search);
    var hash = opts.hash === undefined || opts.hash === null ? loc.hash : opts.hash;
    var want = loc.pathname + search + hash;
    var shown = loc.pathname + loc.search + loc.hash;
    if (want === (pending ? pending.want : shown)) return false;
    if (!opts.later) {
      pending = null;  // a write now supersedes one still to come
      hist.replaceState(opts.keepState ? hist.state : null, "", want);
      return true;
    }
    var scheduled = pending !== null;
    pending = { want: want, keepState: opts.keepState };
    if (!scheduled) {
      setTimeout(function () {
        var p = pending;
        pending = null;
        if (p && p.want !== root.location.pathname + root.location.search + root.location.hash) {
          hist.replaceState(p.keepState ? hist.state : null, "", p.want);
        }
      }, 0);
    }
    return want !== shown;
  }

  // a navigation (an address typed or set, back or forward) supersedes a deferred write still to come: that write
  // holds what the page showed before, and landing after the navigation it would put the old address back
  if (typeof root.addEventListener === "function") {
    root.addEventListener("popstate", function () { pending = null; });
    root.addEventListener("hashchange", function () { pending = null; });
  }

  root.anonset = Object.assign(root.anonset || {}, { syncUrl: syncUrl });

  var dc = root.dash_clientside = root.dash_clientside || {};
  dc.anonset = Object.assign(dc.anonset || {}, {
    /* a page's query store → the address bar's ?… (nothing while the page has no valid query yet) */
    syncQuery: function (query) {
      if (!query) return root.dash_clientside.no_update;
      syncUrl({ search: query });
      return "";
    },
  });
})(typeof window !== "undefined" ? window : globalThis);
