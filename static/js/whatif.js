/* The "What if?" panel's few needs that HTML cannot express (app.web.whatif): open and close it
   (the toolbar's button and the W key), send each form with the step and view on show, apply a
   changed number or choice at once, say "your change makes a difference here" on the first step
   that differs (and mark it on the timeline), keep a challenge's best result in this browser,
   redraw the panel in a language switched over the socket, and keep the page's address on the
   what-if on show (viewer.js keeps `whatif` in it from then on).
   Every move is an ordinary GET that works without this file. */
(function () {
  "use strict";
  function $(id) { return document.getElementById(id); }
  var body = document.body;
  var first = $("whatif");
  if (!first) return;

  /* The address names the what-if on show: a refused move was drawn by /scenario/<id>/whatif,
     and a link the lab could not read shows the scenario as written. Done before viewer.js
     rewrites the address at DOMContentLoaded (this file runs after it, before that event). */
  (function address() {
    var d = first.dataset;
    var query = new URLSearchParams(location.search);
    if (d.value) query.set("whatif", d.value);
    else query.delete("whatif");
    if (d.page !== location.pathname) {
      ["change", "undo", "drop", "server", "value", "ms", "seconds", "name", "to", "tool",
       "description", "inputSchema", "arguments", "after"].forEach(function (key) {
        query.delete(key);
      });
    }
    history.replaceState(history.state, "", d.page + "?" + query.toString());
  })();

  /* The button is the toolbar's (redrawn by the socket on a language, version or transport
     switch), so it is found again each time and told whether the panel is open. */
  function tell() {
    var button = $("btn-whatif");
    var panel = $("whatif-panel");
    if (button && panel) button.setAttribute("aria-expanded", panel.hidden ? "false" : "true");
  }
  function toggle() {
    var panel = $("whatif-panel");
    if (!panel) return;
    panel.hidden = !panel.hidden;
    tell();
    if (!panel.hidden) $("whatif-title").focus({ preventScroll: false });
  }
  document.addEventListener("click", function (event) {
    if (event.target.closest && event.target.closest("#btn-whatif")) toggle();
  });
  document.addEventListener("keydown", function (event) {
    if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return;
    var t = event.target;
    if (t.closest && t.closest("input, select, textarea, [contenteditable], dialog[open]")) return;
    if (event.key !== "w" && event.key !== "W") return;
    toggle();
    event.preventDefault();
  });

  function onShow() {
    var status = $("status");
    return status ? Number(status.dataset.step) : null;
  }

  /* A form carries the step on show (`step` counts from 1, `after` from 0) and the view. */
  document.addEventListener("submit", function (event) {
    var form = event.target.closest && event.target.closest(".whatif-form");
    if (!form) return;
    var step = onShow();
    var tabs = $("tabs");
    form.querySelectorAll("[data-fill]").forEach(function (input) {
      var fill = input.dataset.fill;
      if (fill === "step" && step !== null) input.value = String(step + 1);
      if (fill === "after" && step !== null) input.value = String(step);
      if (fill === "view" && tabs && tabs.dataset.view) input.value = tabs.dataset.view;
    });
    try { sessionStorage.setItem("mcp-lab:whatif-moved", "1"); } catch (e) { /* no storage */ }
  });
  /* A number or a yes/no applies as soon as it changes (the Apply button does it without JS). */
  document.addEventListener("change", function (event) {
    var input = event.target;
    if (!input.matches || !input.matches(".whatif-form [data-auto]")) return;
    if (input.checkValidity && !input.checkValidity()) return;
    var form = input.form;
    if (form.requestSubmit) form.requestSubmit(); else form.submit();
  });

  /* Said where the student reads the step: above its narration (the socket swaps the story's
     regions by id, never the story itself, so this line stays). */
  function place() {
    var here = $("whatif-here");
    var narration = $("narration");
    if (here && narration && narration.parentNode && here.nextSibling !== narration) {
      var old = narration.parentNode.querySelector(":scope > .whatif-here");
      if (old && old !== here) old.remove();
      narration.parentNode.insertBefore(here, narration);
    }
  }

  /* The panel is drawn with the page: a language switched over the socket fetches it again in
     that language, open or closed as it was. */
  var fetching = null;
  function translate(lang) {
    var box = $("whatif");
    if (!box || fetching === lang) return;
    fetching = lang;
    var status = $("status").dataset;
    var trace = $("trace").dataset;  /* the trace on show; #status, its step */
    var query = new URLSearchParams({
      version: trace.version, transport: trace.transport, lang: lang,
      step: String(Number(status.step) + 1),
    });
    if (box.dataset.value) query.set("whatif", box.dataset.value);
    fetch(box.dataset.page + "/whatif/panel?" + query.toString(), { credentials: "same-origin" })
      .then(function (answer) { return answer.ok ? answer.text() : Promise.reject(answer.status); })
      .then(function (html) {
        var now = $("whatif");
        var open = !$("whatif-panel").hidden;
        var fresh = new DOMParser().parseFromString(html, "text/html").getElementById("whatif");
        if (!now || !fresh) return;
        fresh.querySelector("#whatif-panel").hidden = !open;
        now.replaceWith(document.adoptNode(fresh));
        fetching = null;
        follow();
        progress();
      })
      .catch(function () { fetching = null; });
  }

  /* The step on show: "step on show: N" in the interventions, and the first step that differs
     said and marked (the timeline is redrawn by the socket, so marked again after each). */
  function follow() {
    tell();
    place();
    var box = $("whatif");
    var status = $("status");
    var trace = $("trace");
    if (!box || !status || !trace) return;
    var step = Number(status.dataset.step);
    if (trace.dataset.lang && box.getAttribute("lang") !== trace.dataset.lang) {
      translate(trace.dataset.lang);
    }
    document.querySelectorAll('[data-fill="at"]').forEach(function (el) {
      el.textContent = String(step + 1);
    });
    var differs = box.dataset.firstDifference;
    var here = $("whatif-here");
    if (here) here.hidden = differs === "" || Number(differs) !== step;
    if (differs !== "") {
      var mark = $("mark-" + differs);
      if (mark) mark.classList.add("whatif-first");
    }
  }
  document.addEventListener("DOMContentLoaded", follow);
  body.addEventListener("htmx:wsAfterMessage", follow);

  /* A challenge's best result stays in this browser, like a lesson's answers. */
  function storage() {
    try { return window.localStorage; } catch (e) { return null; }
  }
  function progress() {
    var challenge = $("whatif-challenge");
    if (!challenge) return;
    var store = storage();
    var key = "mcp-lab:challenge:" + challenge.dataset.challenge;
    var kept = null;
    try { kept = JSON.parse((store && store.getItem(key)) || "null"); } catch (e) { kept = null; }
    if (!kept || typeof kept !== "object") kept = null;
    if (challenge.dataset.reached === "true") {
      var moves = Number(challenge.dataset.moves);
      if (!kept || !(kept.best <= moves)) kept = { reached: true, best: moves };
      try { if (store) store.setItem(key, JSON.stringify(kept)); } catch (e) { /* full */ }
    }
    var best = $("whatif-best");
    if (best && kept && kept.reached && Number.isInteger(kept.best)) {
      best.textContent = best.dataset.text.replace("{n}", String(kept.best));
      best.hidden = false;
    }
  }
  progress();

  /* After a move, the panel's heading takes the focus: the keyboard stays where it was. */
  document.addEventListener("DOMContentLoaded", function () {
    var moved = null;
    try {
      moved = sessionStorage.getItem("mcp-lab:whatif-moved");
      sessionStorage.removeItem("mcp-lab:whatif-moved");
    } catch (e) { moved = null; }
    var panel = $("whatif-panel");
    var error = $("whatif-error");
    if (panel && !panel.hidden && (moved || error)) {
      (error || $("whatif-title")).focus({ preventScroll: false });
    }
  });
})();
