/* The launch page of an MCP Discovery Lab SCORM package (docs/SCORM.md). It finds the LMS's
   SCORM API the standard way (ADL's: up the window.parent chain, then the opener's), frames the
   lab's lesson, and writes to the API what the lesson reports to its page (docs/EMBEDDING.md):

     initialized  started: status incomplete (unless already completed), location
     progressed   location (the step, from 1); 2004: progress_measure (furthest step / steps)
     answered     the first answer to each question, as one "choice" interaction
     completed    score (the lesson's own: questions right at the first answer, as a percentage
                  with min 0 and max 100, which gradebooks expect; 2004: scaled too), completed

   Messages are taken only from the lesson's own frame, from the lab's origin, about the
   packaged scenario. suspend_data keeps the questions already recorded and the furthest step,
   so a second session neither records an answer twice nor moves progress back; location
   reopens the lesson where the student left it. On the way out (pagehide) the session time and
   exit ("suspend" until completed) are set, committed, and the session is finished, once. */
(function () {
  "use strict";
  var d = document.body.dataset;
  var frame = document.getElementById("lesson");
  var line = document.getElementById("status");
  var v2004 = d.edition === "2004";
  var N = v2004 ? {
    api: "API_1484_11", init: "Initialize", get: "GetValue", set: "SetValue", commit: "Commit",
    finish: "Terminate", error: "GetLastError", text: "GetErrorString", mode: "cmi.mode",
    status: "cmi.completion_status", location: "cmi.location", exit: "cmi.exit",
    session: "cmi.session_time", score: "cmi.score.", response: "learner_response",
    wrong: "incorrect", when: "timestamp", done: "normal"
  } : {
    api: "API", init: "LMSInitialize", get: "LMSGetValue", set: "LMSSetValue", commit: "LMSCommit",
    finish: "LMSFinish", error: "LMSGetLastError", text: "LMSGetErrorString",
    mode: "cmi.core.lesson_mode", status: "cmi.core.lesson_status",
    location: "cmi.core.lesson_location", exit: "cmi.core.exit",
    session: "cmi.core.session_time", score: "cmi.core.score.", response: "student_response",
    wrong: "wrong", when: "time", done: ""
  };
  var lab = new URL(d.lab).origin;
  var questions = {};
  try { questions = JSON.parse(d.questions || "{}") || {}; } catch (e) { questions = {}; }

  function say(text, alert) {
    line.textContent = text || "";
    line.hidden = !text;
    line.classList.toggle("alert", !!alert);
  }

  /* ADL's search: the API is a property of an ancestor frame (or of the window that opened
     this one); a window of another origin throws on reading it, and is passed over. */
  function search(win) {
    for (var tries = 0; win && tries < 500; tries++) {
      try { if (win[N.api]) return win[N.api]; } catch (e) { /* another origin */ }
      if (win.parent === win) break;
      win = win.parent;
    }
    return null;
  }
  function findApi() {
    var found = search(window);
    try { found = found || (window.top.opener && search(window.top.opener)); } catch (e) { /* closed */ }
    try { found = found || (window.opener && search(window.opener)); } catch (e) { /* closed */ }
    return found;
  }

  var api = findApi();
  var live = false, readOnly = false, completed = false, finished = false, resuming = false;
  var started = Date.now(), slow = 0;
  var saved = { answered: {}, furthest: 0 };

  function call(method, args) {
    try { return String(api[method].apply(api, args)); } catch (e) { return "false"; }
  }
  function get(name) { return live ? call(N.get, [name]) : ""; }
  function complain() {
    var code = call(N.error, []);
    say(d.msgRefused.replace("{code}", code).replace("{text}", call(N.text, [code])), true);
  }
  function set(name, value) {
    if (live && !readOnly && call(N.set, [name, String(value)]) !== "true") complain();
  }
  function commit() {
    if (live && call(N.commit, [""]) !== "true") complain();
  }

  if (api && call(N.init, [""]) === "true") {
    live = true;
    readOnly = get(N.mode) === "review";
    completed = /^(completed|passed|failed)$/.test(get(N.status));
    /* 2004 keeps location and suspend_data only for a session that resumes (reading them
       otherwise is error 403, not initialized); 1.2 answers "" for what was never set. */
    resuming = !v2004 || get("cmi.entry") === "resume";
    try {
      var kept = JSON.parse((resuming && get("cmi.suspend_data")) || "{}");
      if (kept && typeof kept.answered === "object" && kept.answered) saved.answered = kept.answered;
      saved.furthest = Number(kept.furthest) || 0;
    } catch (e) { /* not ours, or empty: start afresh */ }
  } else {
    say(api ? "" : d.msgNoLms, true);
    if (api) complain();
  }

  function keep() { set("cmi.suspend_data", JSON.stringify(saved)); }
  function two(n) { return (n < 10 ? "0" : "") + n; }
  function stamp() {
    var now = new Date();
    return v2004 ? now.toISOString().slice(0, 19) : now.toTimeString().slice(0, 8);
  }
  function sessionTime(ms) {
    var cs = Math.round(ms / 10);
    var h = Math.floor(cs / 360000), m = Math.floor(cs / 6000) % 60, s = (cs % 6000) / 100;
    if (v2004) return "PT" + h + "H" + m + "M" + s.toFixed(2) + "S";
    return two(Math.min(h, 9999)) + ":" + two(m) + ":" + (s < 10 ? "0" : "") + s.toFixed(2);
  }

  function progress(e) {
    var step = Number(e.step), total = Number(e.total);
    if (!(step >= 1 && total >= step)) return;
    set(N.location, step);
    if (step > saved.furthest) {
      saved.furthest = step;
      keep();
      if (v2004 && !completed) set("cmi.progress_measure", (step / total).toFixed(4));
    }
  }

  var on = {
    initialized: function (e) {
      clearTimeout(slow);
      say(!live ? d.msgNoLms : readOnly ? d.msgReview : "", !live);
      if (!completed) set(N.status, "incomplete");
      progress(e);
      commit();
    },
    progressed: progress,
    answered: function (e) {
      var key = e.question;
      if (!e.firstTry || typeof key !== "string" || saved.answered[key] !== undefined) return;
      var p = "cmi.interactions." + (Number(get("cmi.interactions._count")) || 0) + ".";
      set(p + "id", key);
      set(p + "type", "choice");
      set(p + N.when, stamp());
      if (v2004 && typeof questions[key] === "string") {
        set(p + "description", "{lang=" + document.documentElement.lang + "}" + questions[key].slice(0, 240));
      }
      set(p + N.response, String.fromCharCode(97 + Math.min(25, Math.max(0, Number(e.choice) || 0))));
      set(p + "result", e.success ? "correct" : N.wrong);
      saved.answered[key] = e.success ? 1 : 0;
      keep();
      commit();
    },
    completed: function (e) {
      var score = e.score || {}, raw = Number(score.raw), max = Number(score.max);
      if (!(max >= 0 && raw >= 0 && raw <= max)) return;
      var scaled = max ? raw / max : 1;
      set(N.score + "min", "0");
      set(N.score + "max", "100");
      set(N.score + "raw", String(Math.round(scaled * 10000) / 100));
      if (v2004) {
        set("cmi.score.scaled", String(Math.round(scaled * 10000) / 10000));
        set("cmi.progress_measure", "1");
      }
      set(N.status, "completed");
      completed = true;
      commit();
      if (live && !readOnly) say(d.msgDone.replace("{right}", raw).replace("{total}", max));
    }
  };

  window.addEventListener("message", function (event) {
    var e = event.data;
    if (event.origin !== lab || event.source !== frame.contentWindow) return;
    if (!e || typeof e !== "object" || e.source !== "mcp-lab") return;
    if (e.type === "resize") {
      if (typeof e.height === "number" && e.height > 0) frame.style.height = Math.ceil(e.height) + "px";
    } else if (e.scenario === d.scenario && Object.prototype.hasOwnProperty.call(on, e.type)) {
      on[e.type](e);
    }
  });

  function finish() {
    if (!live || finished) return;
    finished = true;
    set(N.session, sessionTime(Date.now() - started));
    set(N.exit, completed ? N.done : "suspend");
    call(N.commit, [""]);
    call(N.finish, [""]);
  }
  window.addEventListener("pagehide", finish);
  window.addEventListener("beforeunload", finish);

  /* Reopen where the student left off; the lesson itself stops at a question not yet answered
     in this browser, so a location never skips one. */
  var src = new URL(d.src);
  var at = resuming ? parseInt(get(N.location), 10) : 0;
  if (at > 1) src.searchParams.set("step", String(at));
  slow = setTimeout(function () { say(d.msgSlow, true); }, 20000);
  frame.src = src.toString();
})();
