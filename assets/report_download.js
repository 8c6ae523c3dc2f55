/* "Download report" by plain GET (issue 29): one clientside function for the explorer, the bucket advisor
 * and the data-set page (shipped data sets; an uploaded file's report stays a server callback).
 *
 * dash_clientside.anonset.downloadReport(n_clicks, ...values) is the clientside callback of a page's report
 * button; the button says what to ask for in its data- attributes (set by the page's layout):
 *   data-report     the route, e.g. "/_reports/explorer";
 *   data-params     one name per value after n_clicks, comma-separated:
 *                   "*"       the value is a query ("?a=1&b=2") or an object of parameters, merged as it is;
 *                   "x.*"     the value is a list, the next value the list of its components' ids ({column: c}):
 *                             each non-empty value becomes x.<column>=value (the next name is left empty);
 *                   "x"       x=value, once per element of a list; empty values are left out;
 *   data-message    the id of the page's report message element;
 *   data-preparing  "Preparing the report…" in the page's language;
 *   data-failed     what to say when the server does not answer at all;
 *   data-local      "key=value" (optional): a query holding it is not fetched; the page's own server callback
 *                   answers that click (the data-set page's uploaded file: its records never go to a link).
 * It fetches the URL (same origin, the page's language as ?lang=), saves a 200's body under the file name of
 * its Content-Disposition (an <a download> over an object URL), and otherwise shows the answer's one-line
 * message (400: a bad setting, 503: the server's report slot is busy) in the report message element; any other
 * answer (a proxy's error page, a 500) is data-failed's sentence, never the answer's markup.
 */
(function (root) {
  "use strict";

  function append(q, name, value) {
    if (value === null || value === undefined || value === "") return;
    q.append(name, String(value));
  }

  function merge(q, value) {
    if (typeof value === "string") {
      new URLSearchParams(value.replace(/^\?/, "")).forEach(function (v, k) { q.append(k, v); });
    } else if (value && typeof value === "object") {
      Object.keys(value).forEach(function (k) {
        [].concat(value[k]).forEach(function (v) { append(q, k, v); });
      });
    }
  }

  /** The report's query from the button's data-params and the callback's values. */
  function reportQuery(names, values) {
    var q = new URLSearchParams();
    names.forEach(function (name, i) {
      var value = values[i];
      if (!name) return;
      if (name === "*") {
        merge(q, value);
      } else if (/\.\*$/.test(name)) {
        var ids = values[i + 1] || [];
        [].concat(value || []).forEach(function (v, j) {
          if (ids[j] && ids[j].column !== undefined) append(q, name.slice(0, -1) + ids[j].column, v);
        });
      } else {
        [].concat(value).forEach(function (v) { append(q, name, v); });
      }
    });
    var lang = document.documentElement.getAttribute("lang");
    if (lang && !q.has("lang")) q.set("lang", lang);
    return q;
  }

  /** The file name a Content-Disposition header gives (filename="…"), or a fallback. */
  function fileName(header, fallback) {
    var m = /filename\*?=(?:UTF-8'')?"?([^";]+)"?/i.exec(header || "");
    return m ? decodeURIComponent(m[1]) : fallback;
  }

  function save(blob, name) {
    var url = URL.createObjectURL(blob);
    var a = document.createElement("a");
    a.href = url;
    a.download = name;
    a.style.display = "none";
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(function () { URL.revokeObjectURL(url); }, 60000);
  }

  function message(text, className) {
    return {namespace: "dash_html_components", type: "Div", props: {children: text, className: className}};
  }

  function downloadReport(clicks) {
    var nc = root.dash_clientside;
    if (!clicks) return nc.no_update;
    var trig = (((nc.callback_context || {}).triggered || [])[0] || {}).prop_id || "";
    var button = document.getElementById(trig.replace(/\.n_clicks$/, ""));
    if (!button) return nc.no_update;
    var data = button.dataset;
    var values = Array.prototype.slice.call(arguments, 1);
    var query = reportQuery((data.params || "").split(","), values);
    var local = (data.local || "").split("=");
    if (local[0] && query.getAll(local[0]).indexOf(local.slice(1).join("=")) >= 0) return nc.no_update;
    var url = data.report + "?" + query.toString();
    if (nc.set_props) nc.set_props(data.message, {children: message(data.preparing, "muted")});
    return fetch(url, {credentials: "same-origin"}).then(function (response) {
      if (response.ok) {
        return response.blob().then(function (blob) {
          save(blob, fileName(response.headers.get("Content-Disposition"), "anonset-report.html"));
          return null;
        });
      }
      var plain = /^text\/plain/.test(response.headers.get("Content-Type") || "");  // the route's one line (400/503)
      if (!plain) return message(data.failed || "", "error");  // anything else (a proxy's page, a 500): no markup shown
      return response.text().then(function (text) { return message(text, "error"); });
    }, function () {
      return message(data.failed || "", "error");
    });
  }

  root.dash_clientside = Object.assign({}, root.dash_clientside);
  root.dash_clientside.anonset = Object.assign({}, root.dash_clientside.anonset, {downloadReport: downloadReport});
  root.anonset = Object.assign({}, root.anonset, {reportQuery: reportQuery});
})(window);
