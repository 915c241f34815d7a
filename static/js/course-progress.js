/* Progress marks, for pages that show many lessons (the library, the course path) and the summary
   step: they read what progress.js stored in this browser under "mcp-lab:progress:<scenario>".
   Every text is rendered by the server in each state; this only picks which shows and fills in
   numbers through data-template strings, so nothing here needs translating. */
(function () {
  "use strict";
  var PREFIX = "mcp-lab:progress:";
  function $(id) { return document.getElementById(id); }
  function record(sid) {
    try { return JSON.parse(localStorage.getItem(PREFIX + sid)) || null; } catch (e) { return null; }
  }
  function fill(el, values) {
    var text = el.dataset.template || "";
    Object.keys(values).forEach(function (k) { text = text.split("{" + k + "}").join(values[k]); });
    el.textContent = text;
  }
  function resume(sid, r) {
    var q = new URLSearchParams({ step: String(r.step || 1), version: r.version || "",
      transport: r.transport || "", lang: document.documentElement.lang || "en" });
    return "/scenario/" + encodeURIComponent(sid) + "?" + q.toString();
  }

  function mark() {
    var latest = null;
    document.querySelectorAll("[data-scenario][data-progress]").forEach(function (el) {
      var sid = el.dataset.scenario;
      var r = record(sid);
      var state = !r ? "new" : r.completed ? "completed" : "started";
      el.dataset.progress = state;
      el.querySelectorAll("[data-when]").forEach(function (x) { x.hidden = x.dataset.when !== state; });
      if (!r) return;
      el.querySelectorAll("[data-fill=where]").forEach(function (x) {
        fill(x, { n: r.step || 1, total: r.total || "?" });
      });
      el.querySelectorAll("[data-fill=score]").forEach(function (x) {
        var s = r.score || { raw: 0, max: 0 };
        fill(x, { raw: s.raw, max: s.max });
      });
      el.querySelectorAll("a.continue").forEach(function (a) { a.href = resume(sid, r); });
      if (state === "started" && (!latest || (r.updated || 0) > (latest.r.updated || 0))) {
        latest = { sid: sid, r: r, el: el };
      }
    });
    var box = $("continue-last");
    if (box) {
      box.hidden = !latest;
      if (latest) {
        var title = latest.el.querySelector("h3, .path-link");
        box.querySelector("a").href = resume(latest.sid, latest.r);
        box.querySelector("[data-fill=title]").textContent = title ? title.textContent.trim() : latest.sid;
      }
    }
  }

  function forget() {
    var button = $("btn-forget");
    if (!window.confirm(button.dataset.confirm)) return;
    var doomed = [];
    for (var i = 0; i < localStorage.length; i++) {
      var key = localStorage.key(i);
      if (key.indexOf(PREFIX) === 0 || key.indexOf("mcp-lab:answer:") === 0) doomed.push(key);
    }
    doomed.forEach(function (key) { localStorage.removeItem(key); });
    $("forget-status").textContent = button.dataset.done;
    mark();
  }

  /* The summary step: the score and the questions missed, from this lesson's record. */
  function summarize(r) {
    var summary = $("summary");
    if (!summary || summary.hidden || !r) return;
    var keys = [];
    summary.querySelectorAll("[data-question]").forEach(function (li) {
      var answer = (r.answers || {})[li.dataset.question];
      li.hidden = !!(answer && answer.success);
      keys.push(li.dataset.question);
    });
    var raw = keys.filter(function (k) { var a = (r.answers || {})[k]; return a && a.success; }).length;
    summary.querySelectorAll("[data-raw]").forEach(function (s) { s.hidden = Number(s.dataset.raw) !== raw; });
    var none = $("summary-none");
    if (none) none.hidden = raw !== keys.length;
    summary.dataset.raw = String(raw);
    if (document.body.classList.contains("embedded")) {
      /* Inside a course page the next lesson opens in the same frame, the course path apart. */
      var next = $("summary-next");
      if (next) next.href = next.href.replace("/scenario/", "/embed/");
      summary.querySelectorAll("a[data-outside]").forEach(function (a) { a.target = "_blank"; a.rel = "noopener"; });
    }
  }

  document.addEventListener("mcp-lab:progress", function (event) { summarize(event.detail); });
  document.addEventListener("DOMContentLoaded", mark);
  window.addEventListener("pageshow", mark);  /* back to the library from a lesson */
  document.addEventListener("click", function (event) {
    if (event.target.closest && event.target.closest("#btn-forget")) forget();
  });
})();
