/* Theme: light, dark, or following the system (the default). Loaded in <head> so the page
   never flashes the wrong theme; the toggle button cycles system → light → dark. */
(function () {
  "use strict";
  var KEY = "lab-theme";
  var ORDER = ["system", "light", "dark"];
  function saved() {
    try { return localStorage.getItem(KEY) || "system"; } catch (e) { return "system"; }
  }
  function apply(theme) {
    document.documentElement.dataset.theme = theme;
    var button = document.getElementById("theme-toggle");
    var head = document.getElementById("masthead");
    if (button && head) {
      button.textContent = head.dataset["theme" + theme.charAt(0).toUpperCase() + theme.slice(1)];
    }
  }
  apply(saved());
  document.addEventListener("click", function (event) {
    if (!event.target.closest || !event.target.closest("#theme-toggle")) return;
    var next = ORDER[(ORDER.indexOf(saved()) + 1) % ORDER.length];
    try { localStorage.setItem(KEY, next); } catch (e) { /* private mode: this page only */ }
    apply(next);
  });
  document.addEventListener("DOMContentLoaded", function () { apply(saved()); });
  /* The masthead is re-sent when the language changes: label the new button again. */
  document.addEventListener("htmx:wsAfterMessage", function () { apply(saved()); });
  window.labTheme = { apply: function () { apply(saved()); } };
})();
