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
  /* The instructor's screens. H hides the bars until the reveal (remembered by this browser),
     B blanks the projector, S shows the class results, O opens or closes the poll, R reveals,
     PageDown/PageUp step as a presenter's clicker sends them (the arrows: viewer.js). */
  var store = null;
  try { store = window.localStorage; } catch (e) { store = null; }
  function remembered(key) { return store ? store.getItem("mcp-lab:live:" + key) : null; }
  function keep(key, value) { if (store) store.setItem("mcp-lab:live:" + key, value); }
  function hideBars(hide) {
    body.classList.toggle("hide-bars", hide);
    keep("hide-bars", hide ? "1" : "0");
    var button = document.getElementById("btn-hide-bars");
    if (button) button.setAttribute("aria-pressed", hide ? "true" : "false");
  }
  function blank() {
    var cover = document.getElementById("blank");
    if (cover) cover.hidden = !cover.hidden;
  }
  function showResults(show) {
    var screen = document.getElementById("class-results");
    if (!screen || screen.dataset.ended) return;
    screen.hidden = !show;
    if (show && window.htmx) window.htmx.trigger(screen, "show-results");
    var button = document.getElementById("btn-class-results");
    if (button) button.setAttribute("aria-pressed", show ? "true" : "false");
  }
  function press(id) {
    var button = document.getElementById(id);
    if (button && !button.disabled && button.getAttribute("aria-disabled") !== "true") {
      button.click();
      return true;
    }
    return false;
  }
  if (document.getElementById("live-controls")) hideBars(remembered("hide-bars") === "1");
  document.addEventListener("click", function (event) {
    if (event.target.closest("#btn-hide-bars")) hideBars(!body.classList.contains("hide-bars"));
    if (event.target.closest("#btn-class-results")) {
      var screen = document.getElementById("class-results");
      showResults(!!screen && screen.hidden);
    }
    if (event.target.closest("#blank")) blank();
  });
  /* A timed poll's countdown (the instructor's .poll-timer, a student's #poll-clock): each
     element counts down from the seconds the server counted when it rendered it, from when it
     arrived, in its own words (data-text, "{n}" the seconds). With prefers-reduced-motion the
     number changes every 10 seconds, not every second. A student's clock hides once the poll
     is not open; a screen reader hears it when the poll opens and at 10 seconds left
     (data-say-start, data-say-end, into #poll-clock-say), not every second. */
  var calm = window.matchMedia ? window.matchMedia("(prefers-reduced-motion: reduce)") : null;
  function say(text) {
    var box = document.getElementById("poll-clock-say");
    if (!box || !text) return;
    box.textContent = "";  // the same words for the next poll are a change, and are heard
    setTimeout(function () { box.textContent = text; }, 100);
  }
  function countdown() {
    var now = Date.now();
    var poll = document.getElementById("checkpoint");
    var open = !!poll && poll.dataset.state === "open";
    document.querySelectorAll(".poll-timer[data-left], #poll-clock[data-left]").forEach(function (t) {
      if (!t.dataset.since) t.dataset.since = String(now);
      var left = Math.max(0, Number(t.dataset.left) - Math.floor((now - Number(t.dataset.since)) / 1000));
      if (t.id === "poll-clock") {
        var shown = Number(t.dataset.left) > 0 && open;
        t.hidden = !shown;
        if (!shown) return;
        if (!t.dataset.said) {
          t.dataset.said = left > 10 ? "start" : "end";
          say(t.dataset.sayStart);
        } else if (t.dataset.said === "start" && left <= 10) {
          t.dataset.said = "end";
          say(t.dataset.sayEnd);
        }
      }
      var band = String(Math.ceil(left / 10));  // with reduced motion: drawn once per band
      if (calm && calm.matches && t.dataset.drawn === band) return;
      t.dataset.drawn = band;
      var text = t.querySelector(".clock-text") || t;
      text.textContent = (t.dataset.text || "{n} s").replace("{n}", String(left));
    });
  }
  countdown();
  setInterval(countdown, 1000);
  body.addEventListener("htmx:afterSwap", countdown);
  body.addEventListener("htmx:wsAfterMessage", countdown);
  /* The timer's choice survives the controls being redrawn. */
  document.addEventListener("change", function (event) {
    if (event.target.id === "sel-timer") keep("timer", event.target.value);
  });
  function restoreTimer() {
    var select = document.getElementById("sel-timer");
    var chosen = remembered("timer");
    if (select && chosen !== null) select.value = chosen;
  }
  restoreTimer();
  body.addEventListener("htmx:wsConfigSend", function (event) {
    var params = event.detail.parameters;
    if (params && params.command === "poll_open") {
      var select = document.getElementById("sel-timer");
      if (select) params.seconds = Number(select.value) || 0;
    }
  });
  /* The room's menu stays open across the controls being redrawn. */
  var menuOpen = false;
  body.addEventListener("htmx:wsBeforeMessage", function () {
    var menu = document.getElementById("room-menu");
    menuOpen = !!menu && menu.open;
  });
  /* A room that ended closes its sockets: that is no lost connection, so no toast and no
     retry. A room the instructor gathered brings a student browsing alone back with it. */
  var gathered = null;
  function bar() { return document.getElementById("live-bar"); }
  if (bar()) gathered = bar().dataset.gathered || null;
  body.addEventListener("htmx:wsAfterMessage", function (event) {
    var menu = document.getElementById("room-menu");
    if (menu && menuOpen) menu.open = true;
    restoreTimer();
    if (document.getElementById("btn-hide-bars")) hideBars(body.classList.contains("hide-bars"));
    var ended = document.querySelector("#live-bar.ended, #class-results[data-ended]");
    if (ended) {
      body.dataset.ended = "1";
      var screen = document.getElementById("class-results");
      if (screen) screen.hidden = false;
    }
    var b = bar();
    if (b && b.dataset.gathered !== undefined) {
      if (gathered !== null && b.dataset.gathered !== gathered && b.dataset.attached === "0") {
        event.detail.socketWrapper.send(JSON.stringify({ command: "catchup" }), body);
      }
      gathered = b.dataset.gathered;
    }
  });
  window.addEventListener("htmx:wsClose", function (event) {
    if (body.dataset.ended) {
      event.stopPropagation();
      var conn = document.getElementById("conn");
      if (conn) conn.textContent = "";
    }
  }, true);
  document.addEventListener("keydown", function (event) {
    if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return;
    var t = event.target;
    if (t.closest && t.closest("input, select, textarea, [contenteditable]")) return;
    var key = event.key;
    if (joinButton && (key === "j" || key === "J")) {
      joinScreen(!body.classList.contains("join-large"));
      event.preventDefault();
      return;
    }
    if (joinButton && key === "Escape" && body.classList.contains("join-large")) {
      joinScreen(false);
      return;
    }
    if (key === "Escape") {
      var screen = document.getElementById("class-results");
      if (screen && !screen.hidden && !screen.dataset.ended) { showResults(false); return; }
    }
    if (key === "c" || key === "C") {
      if (press("btn-catchup")) event.preventDefault();
      return;
    }
    if (key === "PageDown") { if (press("btn-next")) event.preventDefault(); return; }
    if (key === "PageUp") { if (press("btn-prev")) event.preventDefault(); return; }
    if (!document.getElementById("live-controls")) return;  /* the rest: instructors only */
    var lower = key.length === 1 ? key.toLowerCase() : key;
    if (lower === "o") { if (!press("btn-poll-open")) press("btn-poll-close"); }
    else if (lower === "r") press("btn-reveal");
    else if (lower === "h") hideBars(!body.classList.contains("hide-bars"));
    else if (lower === "b" || key === ".") blank();
    else if (lower === "s") {
      var results = document.getElementById("class-results");
      showResults(!!results && results.hidden);
    }
    else return;
    event.preventDefault();
  });
})();
