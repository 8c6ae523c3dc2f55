/* AnonSet clientside callbacks: run in the browser, so what they handle never reaches a server. */
window.dash_clientside = Object.assign({}, window.dash_clientside, {
  anonset: {
    /* metric or imperial input boxes */
    toggleUnits: function (units) {
      var hide = {display: "none"};
      return units === "imperial" ? [hide, {}] : [{}, hide];
    },

    /* keep ?country=…&district=… in the address bar without reloading the page (never other answers) */
    syncQuery: function (country, district) {
      var q = new URLSearchParams();
      if (country) q.set("country", country);
      if (district) q.set("district", district);
      var url = window.location.pathname + (q.toString() ? "?" + q.toString() : "") + window.location.hash;
      window.history.replaceState(null, "", url);
      return "";
    },

    /* a link whose #fragment holds the answers; fragments are never sent to a server */
    linkWithAnswers: function (n, country, district, sex, ages, units, hcm, hft, hin, wkg, wlb, hw, ww, aux) {
      var q = new URLSearchParams();
      if (country) q.set("country", country);
      if (district) q.set("district", district);
      var f = new URLSearchParams();
      var put = function (k, v) { if (v !== null && v !== undefined && v !== "" && !(Array.isArray(v) && !v.length)) f.set(k, Array.isArray(v) ? v.join("|") : v); };
      put("sex", sex); put("ages", ages); put("units", units);
      put("hcm", hcm); put("hft", hft); put("hin", hin); put("wkg", wkg); put("wlb", wlb);
      put("hw", hw); put("ww", ww); put("aux", aux);
      var url = window.location.origin + window.location.pathname + "?" + q.toString() + "#" + f.toString();
      if (navigator.clipboard && window.isSecureContext) { navigator.clipboard.writeText(url).catch(function () {}); }
      return url;
    },

    /* fill the form from the #fragment of a shared link, or with an example */
    answersFromFragment: function (hash, nExample, ageOptions, districtOptions, district) {
      var nu = window.dash_clientside.no_update;
      var trig = (window.dash_clientside.callback_context.triggered || [])[0] || {};
      if (trig.prop_id && trig.prop_id.indexOf("example") >= 0) {
        var labels = (ageOptions || []).map(function (o) { return o.value; });
        var age = labels.filter(function (l) { return /^(65|60|40)/.test(l); })[0] || labels[Math.floor(labels.length / 2)];
        var d = district || ((districtOptions || [])[0] || {}).value || nu;
        return ["female", age ? [age] : [], "metric", 162, null, null, 72, null, 5, 5, [], d];
      }
      if (!hash || hash.length < 2) {
        return [nu, nu, nu, nu, nu, nu, nu, nu, nu, nu, nu, nu];
      }
      var f = new URLSearchParams(hash.substring(1));
      var num = function (k) { var v = f.get(k); if (v === null || v === "") return nu; var x = Number(v); return isFinite(x) ? x : nu; };
      var list = function (k) { var v = f.get(k); return v ? v.split("|") : nu; };
      var str = function (k) { var v = f.get(k); return v === null ? nu : v; };
      return [str("sex"), list("ages"), str("units"), num("hcm"), num("hft"), num("hin"), num("wkg"), num("wlb"),
              num("hw"), num("ww"), list("aux"), nu];
    }
  }
});
