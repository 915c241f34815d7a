/* The viewer's few needs that HTML cannot express: the websocket's URL follows the page's URL
   (so a reconnect resumes the same step) and carries the answers this browser remembers, the URL
   follows the state the server sends, the step on show marked in the log and on the timeline,
   the packet's journey across the stage, the keyboard (shortcuts, the ARIA tabs pattern, the
   presenter layout), focus kept across swaps, reconnecting with backoff, and copy-link.
   Everything else is htmx: buttons and links carry ws-send, fragments are swapped by id. */
(function () {
  "use strict";
  var body = document.body;
  var wsPath = body.getAttribute("ws-connect");
  /* The query the page was opened with: the first socket asks for its step (a deep link past a
     question the browser has answered), not the step the server could show without answers. */
  var firstSearch = location.search;
  var lastStep = null;
  var lastView = null;
  var focusedId = null;
  var retries = 0;
  var leaving = false;
  var jumped = false;
  var sheetOpener = null;
  var PREFIX = "mcp-lab:answer:";

  function $(id) { return document.getElementById(id); }
  /* What the page shows: the trace (#trace: scenario, version, transport, lang, last) and the
     step on show (#status: step, kind, checkpoint), which a step's message carries alone. */
  function shown() {
    var trace = $("trace");
    var status = $("status");
    if (!trace || !status) return null;
    return Object.assign({}, trace.dataset, status.dataset);
  }
  function questionOpen() {
    var checkpoint = $("checkpoint");
    return !!checkpoint && checkpoint.dataset.state === "open" && !!$("question");
  }
  function reducedMotion() {
    return window.matchMedia("(prefers-reduced-motion: reduce)").matches;
  }
  var quiet = null;
  function say(key, fleeting) {
    var head = $("masthead");
    var conn = $("conn");
    if (conn && head) conn.textContent = key ? head.dataset[key] || "" : "";
    clearTimeout(quiet);
    if (fleeting) quiet = setTimeout(function () { say(""); }, 4000);
  }

  /* Answers: mcp-lab:answer:<scenario>:<version>:<transport>:<questionKey> = the chosen index. */
  function storage() {
    try { return window.localStorage; } catch (e) { return null; }
  }
  function trail(d) { return PREFIX + d.scenario + ":" + d.version + ":" + d.transport + ":"; }
  function remembered(scenario, version, transport) {
    var store = storage();
    var found = [];
    if (!store) return found;
    var head = PREFIX + scenario + ":" + version + ":" + transport + ":";
    for (var i = 0; i < store.length; i++) {
      var key = store.key(i);
      if (key && key.indexOf(head) === 0) {
        var choice = Number(store.getItem(key));
        if (Number.isInteger(choice) && choice >= 0) found.push(key.slice(head.length) + ":" + choice);
      }
    }
    return found;
  }
  function remember() {
    var trace = $("trace");
    var checkpoint = $("checkpoint");
    var store = storage();
    if (!trace || !checkpoint || !store) return;
    var d = checkpoint.dataset;
    if (d.state === "answered" && d.questionKey && d.chosen !== undefined) {
      try { store.setItem(trail(trace.dataset) + d.questionKey, JSON.stringify(Number(d.chosen))); }
      catch (e) { /* full or private: this visit only */ }
    }
  }
  function forget(scenario) {
    var store = storage();
    if (!store) return;
    var head = PREFIX + scenario + ":";
    for (var i = store.length - 1; i >= 0; i--) {
      var key = store.key(i);
      if (key && key.indexOf(head) === 0) store.removeItem(key);
    }
  }

  /* The socket opens with the page's query and the remembered answers of this scenario, version
     and transport: after a reload or a drop it comes back to this step, its questions answered. */
  htmx.createWebSocket = function () {
    var url = new URL(wsPath, location.href);
    url.protocol = location.protocol === "https:" ? "wss:" : "ws:";
    url.host = location.host;
    var resumed = firstSearch === null;
    var query = new URLSearchParams(resumed ? location.search : firstSearch);
    firstSearch = null;
    /* After a drop the server cannot know what this page kept: it sends everything. */
    if (resumed) query.set("resume", "1");
    told = shape();
    if (told) query.set("shape", told);
    var trace = $("trace");
    if (trace) {
      var d = trace.dataset;
      var version = query.get("version") || d.version;
      var transport = query.get("transport") || d.transport;
      var answers = remembered(d.scenario, version, transport);
      if (answers.length) query.set("answers", answers.join(","));
    }
    url.search = query.toString();
    var socket = new WebSocket(url.toString());
    socket.binaryType = htmx.config.wsBinaryType;
    return socket;
  };

  /* The overview is drawn twice, wide and tall, and lab.css displays one by the screen's size:
     the socket is told which, so a step's message carries that picture's moving parts only.
     When the other one shows (a phone turned, a window resized), the page says so and gets
     the overview whole. */
  var told = "";
  var socketWrapper = null;
  var reshape = null;
  function shape() {
    var tall = document.querySelector("#panel-overview svg.stage.tall");
    if (!tall) return "";
    return getComputedStyle(tall).display === "none" ? "wide" : "tall";
  }
  function reshaped() {
    var now = shape();
    if (!now || now === told || !socketWrapper || body.dataset.ws !== "open") return;
    told = now;
    socketWrapper.send(JSON.stringify({ command: "shape", shape: now }), body);
  }
  window.addEventListener("resize", function () {
    clearTimeout(reshape);
    reshape = setTimeout(reshaped, 200);
  });
  /* The socket may open before the style sheet applies: check again once everything loaded. */
  window.addEventListener("load", reshaped);

  /* The packet leaves its sender's border and lands on its receiver's: the SVG rests it at the
     landing point, and this plays the journey there (not under reduced motion: the same
     landing, the lit wire and its arrow tell the same without travel). */
  function fly() {
    document.querySelectorAll("#panel-overview .packet:not([data-flown])").forEach(function (packet) {
      var piece = packet.querySelector(".packet-body");
      var wire = packet.parentNode.querySelector(".edge.active");
      var at = packet.transform.baseVal.consolidate();
      var ex = at ? at.matrix.e : 0, ey = at ? at.matrix.f : 0;
      packet.setAttribute("data-flown", "");
      /* It rests where it lands (its transform), as far in from the lit wire's end as it
         starts from the wire's start (app.web.stage.motion): data-sx/sy say where. */
      if (wire) {
        var w = function (name) { return Number(wire.getAttribute(name)); };
        packet.dataset.sx = String(w("x1") + w("x2") - ex);
        packet.dataset.sy = String(w("y1") + w("y2") - ey);
      }
      if (!piece || !wire || reducedMotion() || !piece.animate) {
        packet.classList.add("landed");
        return;
      }
      var dx = Number(packet.dataset.sx) - ex;
      var dy = Number(packet.dataset.sy) - ey;
      var run = piece.animate(
        [{ transform: "translate(" + dx + "px, " + dy + "px)" }, { transform: "translate(0px, 0px)" }],
        { duration: 900, easing: "cubic-bezier(.45, .05, .35, 1)" }
      );
      run.onfinish = function () { packet.classList.add("landed"); };
    });
  }

  /* The step on show is marked here, from #status: its entry in the Transport log (current and
     open) and its mark on the timeline (aria-current, the one mark in the Tab order). The
     server's messages carry only what changed, so the previous step's entry and mark need not
     travel again just to lose their mark. A student who closed the current entry keeps it
     closed: only an entry that becomes current is opened. */
  function follow(step) {
    var entry = $("frame-" + step);
    document.querySelectorAll("#log > .frame.current").forEach(function (was) {
      if (was === entry) return;
      was.classList.remove("current");
      var details = was.querySelector("details");
      if (details) details.open = false;
    });
    if (entry && !entry.classList.contains("current")) {
      entry.classList.add("current");
      var details = entry.querySelector("details");
      if (details) details.open = true;
    }
    var mark = $("mark-" + step);
    document.querySelectorAll('#timeline .mark[aria-current], #timeline .mark[tabindex="0"]')
      .forEach(function (was) {
        if (was === mark) return;
        was.removeAttribute("aria-current");
        was.setAttribute("tabindex", "-1");
      });
    if (mark) {
      mark.setAttribute("aria-current", "step");
      mark.setAttribute("tabindex", "0");
    }
  }

  /* Keep the address bar, <html lang>, the title and the language cookie in step. The URL's
     step=N is the Nth step as displayed (from 1); #status carries the 0-based index. */
  function sync() {
    var d = shown();
    var tabs = $("tabs");
    if (!d) return;
    var view = tabs ? tabs.dataset.view : "overview";
    var query = new URLSearchParams({
      step: String(Number(d.step) + 1), view: view, version: d.version, transport: d.transport,
      lang: d.lang,
    });
    if (body.classList.contains("present")) query.set("present", "1");
    /* The live view's own keys (which served server, which session) and a what-if's value
       (app.web.whatif) stay in the address, so a copied link and a reload reproduce them. */
    var own = new URLSearchParams(location.search);
    ["server", "session", "whatif"].forEach(function (key) { if (own.has(key)) query.set(key, own.get(key)); });
    history.replaceState(null, "", location.pathname + "?" + query.toString());
    document.documentElement.lang = d.lang;
    var heading = $("scenario-title");
    if (heading && heading.dataset.title) document.title = heading.dataset.title;
    document.cookie = "lang=" + d.lang + "; path=/; max-age=31536000; samesite=lax";
    follow(d.step);
    remember();
    /* A question that opens takes the focus on its heading, not on a choice: a key meant for
       the player (Space) must not answer it. */
    if (d.step !== lastStep && questionOpen()) {
      $("question").focus({ preventScroll: true });
      if (lastStep !== null) $("question").scrollIntoView({ block: "nearest" });
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
    fly();  /* each packet once: a stage sent again (same step) plays its journey again */
    /* The lesson marks the myth refuted by the step on show; after a jump from it, an open
       panel can leave the story below the fold: bring the story into sight. */
    document.querySelectorAll(".see-step").forEach(function (link) {
      if (link.dataset.step === d.step) link.setAttribute("aria-current", "step");
      else link.removeAttribute("aria-current");
    });
    var story = $("story");
    if (jumped && story) {
      var top = story.getBoundingClientRect().top;
      if (top < 0 || top > window.innerHeight - 120) story.scrollIntoView({ block: "start" });
      jumped = false;
    }
    lastStep = d.step;
    lastView = view;
  }

  /* A room's messages leave bulky bodies out (a log entry's message and bytes, the tools array,
     a narration's terms, a large table): each placeholder names its body by data-load, a path
     under the trace's address (#trace's data-bodies), and htmx loads it once, when it comes into
     sight (a disclosure: when it is opened). */
  function loadBodies() {
    var trace = $("trace");
    if (!trace) return;
    var d = trace.dataset;
    document.querySelectorAll("[data-load]:not([hx-get])").forEach(function (el) {
      var url = new URL(el.dataset.load, new URL(d.bodies, location.href));
      url.searchParams.set("version", d.version);
      url.searchParams.set("transport", d.transport);
      url.searchParams.set("lang", d.lang);
      var opens = el.tagName === "DETAILS";
      el.setAttribute("hx-get", url.pathname + url.search);
      el.setAttribute("hx-trigger", opens ? "toggle once" : "intersect once");
      el.setAttribute("hx-swap", opens ? "beforeend" : "outerHTML");
      if (!opens) el.setAttribute("aria-busy", "true");
      htmx.process(el);
    });
  }

  /* Where focus goes when the element that had it is gone or cannot take it after a swap: the
     feedback of a question just answered, the open question, else the Next control. */
  function refocus(id) {
    var again = id && $(id);
    if (again) {
      again.focus({ preventScroll: true });
      if (document.activeElement === again) return;
    }
    var fallback = $("feedback") || (questionOpen() && $("question")) || $("btn-next");
    if (fallback) fallback.focus({ preventScroll: true });
  }

  /* A table wider than its frame scrolls sideways: mark the frame so that it says so (its
     data-hint, lab.css), after every swap, a part loaded when shown, and a resize. */
  var overflowQueued = false;
  function markOverflow() {
    if (overflowQueued) return;
    overflowQueued = true;
    requestAnimationFrame(function () {
      overflowQueued = false;
      var frames = document.querySelectorAll(".table-wrap");
      for (var i = 0; i < frames.length; i++) {
        var f = frames[i];
        f.classList.toggle("overflows", f.scrollWidth > f.clientWidth + 1);
      }
    });
  }
  document.addEventListener("DOMContentLoaded", markOverflow);
  body.addEventListener("htmx:wsAfterMessage", markOverflow);
  body.addEventListener("htmx:afterSettle", markOverflow);
  window.addEventListener("resize", markOverflow);

  document.addEventListener("DOMContentLoaded", sync);
  document.addEventListener("DOMContentLoaded", loadBodies);
  body.addEventListener("htmx:wsBeforeMessage", function () {
    var active = document.activeElement;
    focusedId = active && active !== body ? active.id || null : null;
  });
  body.addEventListener("htmx:wsAfterMessage", function () {
    var hadFocus = focusedId;
    sync();
    loadBodies();
    var active = document.activeElement;
    if (hadFocus && (!active || active === body || !body.contains(active))) refocus(hadFocus);
  });

  /* Reconnect: htmx-ext-ws retries abnormal closes itself; we also retry the clean ones
     (a server restart, a refused oversized frame), with exponential backoff and jitter. */
  body.addEventListener("htmx:wsOpen", function (event) {
    socketWrapper = event.detail.socketWrapper;
    retries = 0;
    body.dataset.ws = "open";
    say(body.dataset.everOpen ? "msgOnline" : "", true);
    body.dataset.everOpen = "1";
    reshaped();
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

  function click(el) { if (el && el.getAttribute("aria-disabled") !== "true") el.click(); }
  function togglePresent() {
    body.classList.toggle("present");
    sync();
  }

  /* The ARIA tabs pattern: on a focused tab, ← → move to the previous or next tab (wrapping),
     Home and End to the first and last, and the view follows (automatic activation). */
  function moveTab(tab, key) {
    var tabs = Array.prototype.slice.call(document.querySelectorAll('#tabs [role="tab"]'));
    var at = tabs.indexOf(tab);
    var to = key === "ArrowRight" ? (at + 1) % tabs.length
      : key === "ArrowLeft" ? (at - 1 + tabs.length) % tabs.length
      : key === "Home" ? 0 : tabs.length - 1;
    tabs[to].focus();
    tabs[to].click();
  }

  /* Keyboard: ← → step, Space plays (not while a question is open: it waits for an answer,
     which only a choice of the student's own gives), Home/End, 1–4 views, P the presenter
     layout, ? the sheet. */
  /* The digit keys pick a view by its place among the tabs, however many the page has. */
  function viewTab(key) {
    var tabs = document.querySelectorAll('#tabs [role="tab"]');
    return tabs[Number(key) - 1] || null;
  }
  document.addEventListener("keydown", function (event) {
    if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return;
    var t = event.target;
    if (t.closest && t.closest("input, select, textarea, [contenteditable], dialog[open]")) return;
    var key = event.key;
    if (t.getAttribute && t.getAttribute("role") === "tab" &&
        ["ArrowLeft", "ArrowRight", "Home", "End"].indexOf(key) >= 0) {
      moveTab(t, key);
      event.preventDefault();
      return;
    }
    var control = t.closest && t.closest("button, a[href], summary");
    if (key === "ArrowRight") click($("btn-next"));
    else if (key === "ArrowLeft") click($("btn-prev"));
    else if (key === "Home") click(document.querySelector("#timeline .mark"));
    else if (key === "End") click($("btn-end"));  /* stops at an open question */
    else if (key === " " && !control) { if (!questionOpen()) click($("btn-play")); }
    else if (key >= "1" && key <= "9" && key.length === 1) click(viewTab(key));
    else if (key === "p" || key === "P") togglePresent();
    else if (key === "?") openSheet();
    else return;
    event.preventDefault();
  });

  /* The shortcut sheet gives the focus back to what opened it (or to its button). */
  function openSheet() {
    var sheet = $("shortcuts");
    var active = document.activeElement;
    sheetOpener = active && active !== body ? active.id || null : null;
    if (sheet && !sheet.open) sheet.showModal();
  }
  document.addEventListener("close", function (event) {
    if (event.target.id !== "shortcuts") return;
    var back = (sheetOpener && $(sheetOpener)) || $("btn-keys");
    sheetOpener = null;
    if (back) setTimeout(function () { back.focus(); }, 0);
  }, true);

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
    if (event.target.closest("#btn-keys")) openSheet();
    if (event.target.closest("#btn-reset")) {
      var trace = $("trace");
      if (trace) forget(trace.dataset.scenario);
    }
    if (event.target.closest("#btn-copy")) {
      copy(location.href).then(
        function () { say("msgCopied", true); },
        function () { say("msgCopyFailed", true); }
      );
    }
  });

  /* A page that opens on a question puts the focus on it. */
  document.addEventListener("DOMContentLoaded", function () {
    if (questionOpen()) $("question").focus({ preventScroll: true });
  });
})();
