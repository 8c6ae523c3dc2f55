/* AnonSet data-set page: a file larger than the stated limit gets a message instead of silence.
   dcc.Upload drops such a file without a word (its max_size); this reads only the file's size. */
(function () {
  function refuse(file, wrap) {
    var limit = parseInt(wrap.getAttribute("data-max-bytes") || "0", 10);
    if (!limit || !file || file.size <= limit) return;
    var msg = file.name.slice(0, 80) + " is " + (file.size / 1e6).toFixed(1) + " MB; files of at most " +
      Math.round(limit / 1e6) + " MB are accepted.";
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
