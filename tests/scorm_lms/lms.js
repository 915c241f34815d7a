/* The stand-in LMS: one scorm-again runtime, as window.API (SCORM 1.2) or window.API_1484_11
   (2004), started from ?cmi= (JSON, what a previous session left) when given; it records when
   the SCO commits and finishes, then frames the package's launch page. */
(function () {
  "use strict";
  var params = new URLSearchParams(location.search);
  var v2004 = params.get("edition") === "2004";
  var api = v2004 ? new Scorm2004API({ logLevel: 3 }) : new Scorm12API({ logLevel: 3 });
  if (params.get("cmi")) api.loadFromJSON(JSON.parse(params.get("cmi")));
  window.lms = { commits: 0, finished: false };
  api.on(v2004 ? "Commit" : "LMSCommit", function () { window.lms.commits += 1; });
  api.on(v2004 ? "Terminate" : "LMSFinish", function () { window.lms.finished = true; });
  if (v2004) window.API_1484_11 = api; else window.API = api;
  document.getElementById("sco").src = params.get("sco") || "/package/index.html";
})();
