/* A live room's page: keep it in order with the room, and remember this student's vote.
   Every room message opens with <div id="live-seq" data-seq data-mode>: "full" sets the page
   to the room's state, "delta" and "notice" must follow the last seq seen, or the page asks
   the server for the state ({"command": "sync"}) instead of showing a stale or reordered step;
   "local" is this connection's own answer. The key C catches up with the class. */
(function () {
  "use strict";
  var body = document.body;
  var marker = document.getElementById("live-seq");
  var last = marker && marker.dataset.seq ? Number(marker.dataset.seq) : -1;
  var votes = {};
  var asked = false;
  function parse(message) {
    var m = /^<div id="live-seq" hidden data-mode="(\w+)"(?: data-seq="(\d+)")?/.exec(message);
    if (!m) return null;
    return { mode: m[1], seq: m[2] === undefined ? null : Number(m[2]) };
  }
  body.addEventListener("htmx:wsBeforeMessage", function (event) {
    var head = parse(event.detail.message);
    if (!head || head.seq === null) return;
    if (head.mode === "full") {
      if (head.seq < last) { event.preventDefault(); return; }
      last = head.seq;
      asked = false;
      return;
    }
    if (head.seq <= last) { event.preventDefault(); return; }
    if (head.mode === "delta") joinScreen(false);  // the class has started moving
    if (head.seq !== last + 1) {
      event.preventDefault();
      if (!asked) {
        asked = true;
        event.detail.socketWrapper.send(JSON.stringify({ command: "sync" }), body);
      }
      return;
    }
    last = head.seq;
  });
  /* The presenter's join screen: large at first, closed by the first step, J or its button
     shows or hides it again, Escape hides it. */
  var joinButton = document.getElementById("btn-join-screen");
  function joinScreen(show) {
    if (!joinButton) return;
    body.classList.toggle("join-large", show);
    joinButton.setAttribute("aria-pressed", show ? "true" : "false");
  }
  if (joinButton) {
    joinButton.addEventListener("click", function () {
      joinScreen(!body.classList.contains("join-large"));
    });
  }
  function markVote() {
    var poll = document.getElementById("checkpoint");
    if (!poll || !poll.dataset.poll) return;
    var choice = votes[poll.dataset.poll];
    poll.querySelectorAll(".choice").forEach(function (button) {
      var picked = button.id === "choice-" + choice;
      button.classList.toggle("picked", picked);
      button.setAttribute("aria-pressed", picked ? "true" : "false");
    });
  }
  body.addEventListener("htmx:wsAfterMessage", function () {
    var status = document.getElementById("vote-status");
    if (status && status.dataset.poll) votes[status.dataset.poll] = status.dataset.choice;
    markVote();
  });
  document.addEventListener("keydown", function (event) {
    if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return;
    var t = event.target;
    if (t.closest && t.closest("input, select, textarea, [contenteditable]")) return;
    if (joinButton && (event.key === "j" || event.key === "J")) {
      joinScreen(!body.classList.contains("join-large"));
      event.preventDefault();
      return;
    }
    if (joinButton && event.key === "Escape" && body.classList.contains("join-large")) {
      joinScreen(false);
      return;
    }
    if (event.key === "c" || event.key === "C") {
      var button = document.getElementById("btn-catchup");
      if (button) { button.click(); event.preventDefault(); }
    }
  });
})();
