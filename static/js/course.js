/* The viewer's Embed dialog: the iframe snippet, with this lab's own origin, and a copy button. */
(function () {
  "use strict";
  function $(id) { return document.getElementById(id); }
  function snippet(dialog) {
    var src = new URL(dialog.dataset.src, location.href).toString();
    var helper = new URL(dialog.dataset.helper, location.href).toString();
    var title = dialog.dataset.title.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");
    return '<iframe src="' + src.replace(/&/g, "&amp;") + '" title="' + title + '"\n' +
      '        width="100%" height="720" loading="lazy"></iframe>\n' +
      '<script src="' + helper + '" defer></script>';
  }
  document.addEventListener("click", function (event) {
    var dialog = $("embed-dialog");
    if (!dialog) return;
    if (event.target.closest("#btn-embed")) {
      $("embed-code").value = snippet(dialog);
      $("embed-status").textContent = "";
      dialog.showModal();
      $("embed-code").select();
    } else if (event.target.closest("#embed-copy")) {
      var button = $("embed-copy");
      var area = $("embed-code");
      area.select();
      var done = function () { $("embed-status").textContent = button.dataset.done; };
      var failed = function () { $("embed-status").textContent = button.dataset.failed; };
      if (navigator.clipboard && window.isSecureContext) navigator.clipboard.writeText(area.value).then(done, failed);
      else if (document.execCommand("copy")) done();
      else failed();
    }
  });
})();
