/* AnonSet data-set page: a file larger than the stated limit gets a message instead of silence.
   dcc.Upload drops such a file without a word (its max_size); this reads only the file's size.
   The sentence comes from the page in its language (data-too-large, the core's own words), the numbers from Intl. */
(function () {
  function refuse(file, wrap) {
    var limit = parseInt(wrap.getAttribute("data-max-bytes") || "0", 10);
    if (!limit || !file || file.size <= limit) return;
    var lang = wrap.getAttribute("data-lang") || "en";
    var template = wrap.getAttribute("data-too-large") || "{name} is {size} MB; files of at most {limit} MB are accepted";
    var one = new Intl.NumberFormat(lang, {minimumFractionDigits: 1, maximumFractionDigits: 1});
    var whole = new Intl.NumberFormat(lang, {maximumFractionDigits: 0});
    var msg = template.replace("{name}", file.name.slice(0, 80)).replace("{size}", one.format(file.size / 1e6))
      .replace("{limit}", whole.format(limit / 1e6));
    if (window.dash_clientside && window.dash_clientside.set_props) {
      window.dash_clientside.set_props("dataset-upload-refused", {children: msg, className: "error"});
    }
  }
  function handler(ev) {
    var wrap = ev.target && ev.target.closest ? ev.target.closest("#dataset-upload-wrap") : null;
    if (!wrap) return;
    var files = (ev.dataTransfer && ev.dataTransfer.files) || (ev.target && ev.target.files) || [];
    for (var i = 0; i < files.length; i++) refuse(files[i], wrap);
  }
  document.addEventListener("change", handler, true);
  document.addEventListener("drop", handler, true);
})();
