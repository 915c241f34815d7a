/* How a live page meets a room it cannot follow, by the close of /live/<code>/ws
   (app/web/classroom/socket.py and presence.py). Closes other than these are viewer.js's.
   - 1013 "store unavailable": the classroom service is not answering. Say so and let
     htmx-ext-ws try again with backoff (capped here, so the page follows again soon after the
     store is back); the server refuses with 1013 until then.
   - "room is full": say so, try again a few times, further apart each time, then ask for a
     reload (a page never retries for ever).
   - "room ended" / "ended": the class is over (ended, or the store lost the room): say so and
     stop. */
(function () {
  "use strict";
  var texts = document.currentScript ? document.currentScript.dataset : {};
  var body = document.body;
  var fullTries = 0;
  var RETRIES = "mcp-lab:retries";  // retry.js's count of reloads of an unavailable page

  htmx.config.wsReconnectDelay = function (retry) {
    return 500 + Math.random() * Math.min(15000, 1000 * Math.pow(2, retry));
  };
  function say(text) {
    var conn = document.getElementById("conn");
    if (conn) conn.textContent = text || "";
  }
  document.addEventListener("htmx:wsClose", function (event) {
    var close = event.detail.event;
    var reason = close.reason || "";
    if (close.code === 1013) {
      body.dataset.live = "outage";
      say(texts.msgOutage);
    } else if (reason === "room is full") {
      body.dataset.live = "full";
      if (fullTries < 3) {
        say(texts.msgFull);
        var delay = 5000 * Math.pow(2, fullTries++) * (0.5 + Math.random());
        setTimeout(function () { event.detail.socketWrapper.reconnect(); }, delay);
      } else {
        say(texts.msgFullStop);
      }
    } else if (reason === "room ended" || reason === "ended") {
      body.dataset.live = "ended";
      say(texts.msgEnded);
    } else {
      return;
    }
    event.stopPropagation();  // said here: viewer.js would say "connection lost" and retry
  }, true);
  document.addEventListener("htmx:wsConnecting", function () {
    if (body.dataset.live === "outage") say(texts.msgOutage);  // outlast a fleeting status
  }, true);
  document.addEventListener("htmx:wsOpen", function () {
    body.dataset.live = "open";
    try { window.sessionStorage.removeItem(RETRIES); } catch (e) { /* private mode */ }
  }, true);
})();
