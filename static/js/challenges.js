/* The library's challenge cards: the fewest moves this browser reached each goal with, as the
   viewer's What if? panel keeps it (localStorage "mcp-lab:challenge:<id>" = {reached, best}). */
(function () {
  "use strict";
  function kept(id) {
    try {
      var value = JSON.parse(window.localStorage.getItem("mcp-lab:challenge:" + id) || "null");
      return value && value.reached === true && Number.isInteger(value.best) ? value : null;
    } catch (e) { return null; }
  }
  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll("[data-challenge-state]").forEach(function (state) {
      var found = kept(state.dataset.challengeState);
      if (!found) return;
      state.textContent = state.dataset.template.replace("{n}", String(found.best));
      state.hidden = false;
      state.closest(".card").dataset.reached = "true";
    });
  });
})();
