/* A page the server could not serve because the classroom service is not answering (503):
   load it again by itself, with backoff (2 s, 4 s, 8 s … at most 30 s, jittered), counting
   the reloads in sessionStorage so each waits longer; a live page that opens its socket
   forgets the count (classroom-link.js). */
(function () {
  "use strict";
  var KEY = "mcp-lab:retries";
  var tries = 0;
  try { tries = Number(window.sessionStorage.getItem(KEY)) || 0; } catch (e) { /* private */ }
  var delay = Math.min(30000, 2000 * Math.pow(2, tries)) * (0.5 + Math.random() / 2);
  setTimeout(function () {
    try { window.sessionStorage.setItem(KEY, String(tries + 1)); } catch (e) { /* private */ }
    window.location.reload();
  }, delay);
})();
