/* The viewer's few needs that HTML cannot express: the websocket's URL follows the page's URL
   (so a reconnect resumes the same step), the URL follows the state the server sends, the
   keyboard shortcuts, focus kept across swaps, reconnecting with backoff, copy-link, and
   bringing the step into sight after a jump from the lesson panel.
   Everything else is htmx: buttons and links carry ws-send, fragments are swapped by id. */
(function () {
  "use strict";
  var body = document.body;
  var wsPath = body.getAttribute("ws-connect");
  var lastStep = null;
  var lastView = null;
  var focusedId = null;
  var retries = 0;
  var leaving = false;
  var jumped = false;

  function $(id) { return document.getElementById(id); }
  function questionOpen() {
    var checkpoint = $("checkpoint");
    return !!checkpoint && checkpoint.dataset.state === "open" && !!$("question");
  }
  var quiet = null;
  function say(key, fleeting) {
    var head = $("masthead");
    var conn = $("conn");
    if (conn && head) conn.textContent = key ? head.dataset[key] || "" : "";
    clearTimeout(quiet);
    if (fleeting) quiet = setTimeout(function () { say(""); }, 4000);
  }

  /* The socket opens with the page's current query: after a drop it comes back to this step. */
  htmx.createWebSocket = function () {
    var url = new URL(wsPath, location.href);
    url.protocol = location.protocol === "https:" ? "wss:" : "ws:";
    url.host = location.host;
    url.search = location.search;
    var socket = new WebSocket(url.toString());
    socket.binaryType = htmx.config.wsBinaryType;
    return socket;
  };

  /* Keep the address bar, <html lang>, the title and the language cookie in step. The URL's
     step=N is the Nth step as displayed (from 1); #status carries the 0-based index. */
  function sync() {
    var status = $("status");
    var tabs = $("tabs");
    if (!status) return;
    var d = status.dataset;
    var view = tabs ? tabs.dataset.view : "overview";
    var query = new URLSearchParams({
      step: String(Number(d.step) + 1), view: view, version: d.version, transport: d.transport,
      lang: d.lang,
    });
    history.replaceState(null, "", location.pathname + "?" + query.toString());
    document.documentElement.lang = d.lang;
    document.title = d.title;
    document.cookie = "lang=" + d.lang + "; path=/; max-age=31536000; samesite=lax";
    /* A question that opens takes the focus on its heading, not on a choice: a key meant for
       the player (Space) must not answer it. */
    if (lastStep !== null && d.step !== lastStep && questionOpen()) {
      $("question").focus({ preventScroll: true });
      $("question").scrollIntoView({ block: "nearest" });
    }
    if (lastView !== null && view !== lastView) {
      var panel = $("panel-" + view);
      if (panel && window.matchMedia("(min-width: 1200px)").matches) {
        panel.scrollIntoView({ block: "nearest" });
      }
    }
    /* Keep the newest frame of the log in sight, scrolling the log only, never the page. */
    var log = $("panel-transport");
    var current = log && log.querySelector(".log .current");
    if (current && d.step !== lastStep) {
      var box = log.getBoundingClientRect();
      var item = current.getBoundingClientRect();
      if (item.top < box.top || item.bottom > box.bottom) log.scrollTop += item.top - box.top - 48;
    }
    /* The lesson marks the myth refuted by the step on show; after a jump from it, an open
       panel can leave the story below the fold: bring the story into sight. */
    document.querySelectorAll(".see-step").forEach(function (link) {
      if (link.dataset.step === d.step) link.setAttribute("aria-current", "step");
      else link.removeAttribute("aria-current");
    });
    var story = document.querySelector(".story");
    if (jumped && story) {
      var top = story.getBoundingClientRect().top;
      if (top < 0 || top > window.innerHeight - 120) story.scrollIntoView({ block: "start" });
      jumped = false;
    }
    lastStep = d.step;
    lastView = view;
  }

  /* The packet in flight: it rests at its transform attribute and flies there from data-from.
     Web Animations, not a style attribute, so the CSP needs no 'unsafe-inline'. */
  var still = window.matchMedia("(prefers-reduced-motion: reduce)");
  function fly() {
    var packet = document.querySelector("#panel-overview .packet[data-from]");
    if (!packet || packet.dataset.flown || still.matches || !packet.animate) return;
    packet.dataset.flown = "1";
    var from = packet.dataset.from.split(" ");
    var to = (packet.getAttribute("transform") || "").match(/-?[\d.]+/g) || [0, 0];
    packet.animate([
      { transform: "translate(" + from[0] + "px, " + from[1] + "px)", opacity: 0.25 },
      { transform: "translate(" + to[0] + "px, " + to[1] + "px)", opacity: 1 }
    ], { duration: 800, easing: "cubic-bezier(.3, .7, .3, 1)" });
  }

  document.addEventListener("DOMContentLoaded", sync);
  document.addEventListener("DOMContentLoaded", fly);
  body.addEventListener("htmx:wsBeforeMessage", function () {
    var active = document.activeElement;
    focusedId = active && active !== body ? active.id : null;
  });
  body.addEventListener("htmx:wsAfterMessage", function () {
    sync();
    fly();
    var active = document.activeElement;
    if (focusedId && (!active || active === body || !body.contains(active))) {
      var again = $(focusedId);
      if (again) again.focus({ preventScroll: true });
    }
  });

  /* Reconnect: htmx-ext-ws retries abnormal closes itself; we also retry the clean ones
     (a server restart, a refused oversized frame), with exponential backoff and jitter. */
  body.addEventListener("htmx:wsOpen", function () {
    retries = 0;
    body.dataset.ws = "open";
    say(body.dataset.everOpen ? "msgOnline" : "", true);
    body.dataset.everOpen = "1";
  });
  body.addEventListener("htmx:wsClose", function (event) {
    body.dataset.ws = "closed";
    if (leaving) return;
    say("msgOffline");
    var code = event.detail.event.code;
    if ([1006, 1011, 1012, 1013, 1008].indexOf(code) >= 0) return;
    var delay = Math.random() * Math.min(30000, 500 * Math.pow(2, retries++));
    setTimeout(function () { event.detail.socketWrapper.reconnect(); }, delay);
  });
  window.addEventListener("pagehide", function () { leaving = true; });

  /* Keyboard: ← → step, Space plays (not while a question is open: it waits for an answer,
     which only a choice of the student's own gives), Home/End, 1–4 views, ? the sheet. */
  function click(el) { if (el && el.getAttribute("aria-disabled") !== "true") el.click(); }
  var VIEWS = ["overview", "transport", "transform", "output"];
  document.addEventListener("keydown", function (event) {
    if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return;
    var t = event.target;
    if (t.closest && t.closest("input, select, textarea, [contenteditable], dialog[open]")) return;
    var control = t.closest && t.closest("button, a[href], summary");
    var key = event.key;
    if (key === "ArrowRight") click($("btn-next"));
    else if (key === "ArrowLeft") click($("btn-prev"));
    else if (key === "Home") click(document.querySelector("#timeline .mark"));
    else if (key === "End") click(document.querySelector("#timeline li:last-child .mark"));
    else if (key === " " && !control) { if (!questionOpen()) click($("btn-play")); }
    else if (key >= "1" && key <= "4") click($("tab-" + VIEWS[Number(key) - 1]));
    else if (key === "?") $("shortcuts").showModal();
    else return;
    event.preventDefault();
  });

  /* Buttons that only the browser can serve: the sheet and copy-link. */
  function copy(text) {
    if (navigator.clipboard && window.isSecureContext) return navigator.clipboard.writeText(text);
    var area = document.createElement("textarea");
    area.value = text;
    area.setAttribute("readonly", "");
    area.style.position = "fixed";
    area.style.opacity = "0";
    body.appendChild(area);
    area.select();
    var ok = document.execCommand("copy");
    area.remove();
    return ok ? Promise.resolve() : Promise.reject(new Error("copy"));
  }
  document.addEventListener("click", function (event) {
    if (event.target.closest(".see-step")) jumped = true;
    if (event.target.closest("#btn-keys")) $("shortcuts").showModal();
    if (event.target.closest("#btn-copy")) {
      copy(location.href).then(
        function () { say("msgCopied", true); },
        function () { say("msgCopyFailed", true); }
      );
    }
  });
})();
