/* Presenter mode (large type, high contrast) for projectors: the navbar toggle, ?presenter=1|0, localStorage. */
(function () {
  var KEY = "shell-presenter-store"; // dcc.Store(storage_type="local") keeps its data under its id, as JSON
  try {
    var q = new URLSearchParams(window.location.search);
    var on = q.get("presenter") === "1" || (q.get("presenter") !== "0" && JSON.parse(window.localStorage.getItem(KEY)) === true);
    if (on) {
      // before Dash renders, so a projector never flashes the small layout
      document.documentElement.classList.add("presenter");
      document.addEventListener("DOMContentLoaded", function () { document.body.classList.add("presenter"); });
    }
  } catch (e) { /* localStorage may be unavailable (private mode); the callbacks below still work */ }
})();

window.dash_clientside = Object.assign({}, window.dash_clientside, {
  anonsetShell: {
    /* the toggle flips the mode; ?presenter=1 or ?presenter=0 in a link sets it; otherwise keep the stored choice */
    choosePresenter: function (nClicks, search, stored) {
      var trig = ((window.dash_clientside.callback_context || {}).triggered || [])[0] || {};
      if (trig.prop_id && trig.prop_id.indexOf("presenter-toggle") >= 0 && nClicks) {
        return !stored;
      }
      var q = new URLSearchParams(search || "");
      if (q.get("presenter") === "1") return true;
      if (q.get("presenter") === "0") return false;
      return stored === true ? window.dash_clientside.no_update : false;
    },

    /* apply the mode to <body> and tell assistive technology whether the toggle is pressed */
    applyPresenter: function (on) {
      document.body.classList.toggle("presenter", on === true);
      document.documentElement.classList.toggle("presenter", on === true);
      return on === true ? "true" : "false";
    }
  }
});
