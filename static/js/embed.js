/* The embedded lesson's voice towards its course page: each lesson event (progress.js) is
   posted to the parent window with an xAPI statement, and the page's height so the frame can
   fit it. Messages go only to origins the lab was configured with (LAB_FRAME_ANCESTORS, and the
   lab's own), never to "*": where the browser names the parent's origin (ancestorOrigins) only
   that one, and only if allowed; elsewhere each allowed origin, which the browser delivers to
   the parent only if it is that origin. */
(function () {
  "use strict";
  if (window.parent === window) return;  /* opened on its own: nobody to tell */
  var body = document.body;
  var allowed = (body.dataset.embedOrigins || "").split(/\s+/).filter(Boolean);
  allowed.push(location.origin);
  var ADL = "http://adlnet.gov/expapi/verbs/";
  var EXT = location.origin + "/xapi/";
  var PROGRESS = "https://w3id.org/xapi/cmi5/result/extensions/progress";

  function targets() {
    var ancestors = location.ancestorOrigins;
    if (ancestors && ancestors.length) return allowed.indexOf(ancestors[0]) >= 0 ? [ancestors[0]] : [];
    return allowed;
  }
  function post(message) {
    targets().forEach(function (origin) {
      try { window.parent.postMessage(message, origin); } catch (e) { /* parent went away */ }
    });
  }
  function uuid() {
    if (window.crypto && crypto.randomUUID) return crypto.randomUUID();
    var b = crypto.getRandomValues(new Uint8Array(16));
    b[6] = (b[6] & 15) | 64; b[8] = (b[8] & 63) | 128;
    var h = Array.prototype.map.call(b, function (x) { return (x + 256).toString(16).slice(1); }).join("");
    return h.slice(0, 8) + "-" + h.slice(8, 12) + "-" + h.slice(12, 16) + "-" + h.slice(16, 20) + "-" + h.slice(20);
  }
  /* xAPI needs an actor; the lab does not know the learner, so an anonymous account of this
     browser stands in, and a course page may replace it with its own learner. */
  function learner() {
    var name = null;
    try { name = localStorage.getItem("mcp-lab:learner"); } catch (e) { /* storage off */ }
    if (!name) {
      name = uuid();
      try { localStorage.setItem("mcp-lab:learner", name); } catch (e) { /* storage off */ }
    }
    return { objectType: "Agent", account: { homePage: location.origin, name: name } };
  }
  function statement(e) {
    var title = document.getElementById("scenario-title");
    var lang = document.documentElement.lang || "en";
    var name = {};
    name[lang] = title ? title.textContent.trim() : e.scenario;
    var context = { platform: "MCP Discovery Lab", language: lang, extensions: {} };
    context.extensions[EXT + "protocol-version"] = e.version;
    context.extensions[EXT + "transport"] = e.transport;
    context.extensions[EXT + "step"] = e.step;
    var s = {
      id: uuid(),
      actor: learner(),
      verb: { id: ADL + e.type, display: { "en-US": e.type } },
      object: {
        objectType: "Activity",
        id: location.origin + "/scenario/" + encodeURIComponent(e.scenario),
        definition: { type: "http://adlnet.gov/expapi/activities/lesson", name: name }
      },
      context: context,
      timestamp: new Date().toISOString()
    };
    if (e.type === "answered") {
      s.result = { success: e.success, response: String(e.choice), extensions: {} };
      s.result.extensions[EXT + "question"] = e.question;
      s.result.extensions[EXT + "first-try"] = e.firstTry;
    } else if (e.type === "progressed") {
      s.result = { extensions: {} };
      s.result.extensions[PROGRESS] = Math.round((100 * e.step) / e.total);
    } else if (e.type === "completed") {
      s.result = {
        completion: true,
        score: { raw: e.score.raw, min: 0, max: e.score.max, scaled: e.score.scaled }
      };
    }
    return s;
  }

  document.addEventListener("mcp-lab:lesson", function (event) {
    var e = event.detail;
    var message = { source: "mcp-lab" };
    Object.keys(e).forEach(function (k) { message[k] = e[k]; });
    message.statement = statement(e);
    post(message);
  });

  var height = 0;
  function resized() {
    var now = Math.ceil(body.getBoundingClientRect().height);
    if (now !== height) {
      height = now;
      post({ source: "mcp-lab", type: "resize", height: now });
    }
  }
  if (window.ResizeObserver) new ResizeObserver(resized).observe(body);
  window.addEventListener("load", resized);
})();
