/* A student's progress through one lesson, kept in this browser (localStorage), and the lesson's
   events for whoever listens (embed.js forwards them to a course page).

   Storage: "mcp-lab:progress:<scenario>" holds {step, version, transport, furthest, total,
   answers: {<questionKey>: {choice, success, last}}, completed, score: {raw, max, scaled}}.
   `step` and `furthest` count from 1 as the screen does; `choice` is the first answer given,
   so the score counts questions right on the first try, across reloads and versions.
   Events: a "mcp-lab:lesson" CustomEvent on document whose detail is {type: "initialized" |
   "progressed" | "answered" | "completed", scenario, version, transport, step, total, ...}. */
(function () {
  "use strict";
  var PREFIX = "mcp-lab:progress:";
  var lastStep = null;
  var pending = null;
  var completedSent = false;

  function $(id) { return document.getElementById(id); }
  function load(sid) {
    try { return JSON.parse(localStorage.getItem(PREFIX + sid)) || {}; } catch (e) { return {}; }
  }
  function save(sid, record) {
    record.updated = Date.now();
    try { localStorage.setItem(PREFIX + sid, JSON.stringify(record)); } catch (e) { /* full or off */ }
  }
  function where() {
    var status = $("status");
    var trace = $("trace");
    if (!status || !trace) return null;
    var d = Object.assign({}, trace.dataset, status.dataset);
    return {
      scenario: d.scenario, version: d.version, transport: d.transport,
      step: Number(d.step) + 1, total: Number(d.last) + 1
    };
  }
  function questionKeys() {
    var data = $("course-data");
    try { return data ? JSON.parse(data.dataset.questions || "[]") : []; } catch (e) { return []; }
  }
  function score(record) {
    var keys = questionKeys();
    var answers = record.answers || {};
    var raw = keys.filter(function (k) { return answers[k] && answers[k].success; }).length;
    var max = keys.length;
    return { raw: raw, max: max, scaled: max ? Math.round((raw / max) * 10000) / 10000 : 1 };
  }
  function emit(type, at, extra) {
    var detail = Object.assign({ type: type }, at, extra || {});
    document.dispatchEvent(new CustomEvent("mcp-lab:lesson", { detail: detail }));
  }

  function sync() {
    var at = where();
    if (!at || !at.scenario) return;
    var record = load(at.scenario);
    var first = lastStep === null;
    record.step = at.step;
    record.version = at.version;
    record.transport = at.transport;
    record.total = at.total;
    record.furthest = Math.max(record.furthest || 0, at.step);
    record.answers = record.answers || {};
    if (pending && $("feedback")) {
      var old = record.answers[pending.key];
      var success = $("feedback").classList.contains("ok");
      if (!old) record.answers[pending.key] = { choice: pending.choice, success: success };
      record.answers[pending.key].last = pending.choice;
      save(at.scenario, record);
      emit("answered", at, {
        question: pending.key, choice: pending.choice, success: success, firstTry: !old
      });
      pending = null;
    }
    if (first) emit("initialized", at);
    else if (at.step !== lastStep) emit("progressed", at);
    /* Completed: the last step reached with every question of this trace answered (a link
       straight to the end does not complete a lesson). */
    var answeredAll = questionKeys().every(function (k) { return !!record.answers[k]; });
    if (at.step === at.total && answeredAll && !completedSent) {
      completedSent = true;
      record.completed = true;
      record.score = score(record);
      save(at.scenario, record);
      emit("completed", at, { score: record.score });
    }
    save(at.scenario, record);
    lastStep = at.step;
    document.dispatchEvent(new CustomEvent("mcp-lab:progress", { detail: record }));
  }

  /* An answer is the student's own click on a choice; the server's reply says if it was right. */
  document.addEventListener("click", function (event) {
    var choice = event.target.closest && event.target.closest("#checkpoint .choice");
    var checkpoint = $("checkpoint");
    if (!choice || !checkpoint || !checkpoint.dataset.key) return;
    pending = { key: checkpoint.dataset.key, choice: Number(choice.id.replace("choice-", "")) };
  });
  document.addEventListener("DOMContentLoaded", sync);
  document.body.addEventListener("htmx:wsAfterMessage", sync);
  window.mcpLabProgress = { load: load, save: save, prefix: PREFIX };
})();
