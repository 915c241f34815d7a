/* LTI in the browser: submit the deep-linking response to the platform, and send a launched
   lesson's first answers to the lab when it completes, so the lab can grade it for the LMS.
   A launch opens /scenario/<id>?lti=<launch id>; the id is kept for this tab (sessionStorage)
   so a reload still reports. */
(function () {
  "use strict";
  var form = document.querySelector("form[data-autosubmit]");
  if (form) { form.submit(); return; }
  var params = new URLSearchParams(location.search);
  var match = location.pathname.match(/\/(?:scenario|embed)\/([^/]+)/);
  if (!match) return;
  var sid = decodeURIComponent(match[1]);
  var key = "mcp-lab:lti:" + sid;
  try {
    if (params.get("lti")) sessionStorage.setItem(key, params.get("lti"));
  } catch (e) { /* storage off */ }
  var launch = null;
  try { launch = sessionStorage.getItem(key); } catch (e) { launch = params.get("lti"); }
  if (!launch) return;
  document.addEventListener("mcp-lab:lesson", function (event) {
    var e = event.detail;
    if (e.type !== "completed") return;
    var record = {};
    try { record = JSON.parse(localStorage.getItem("mcp-lab:progress:" + sid)) || {}; } catch (x) { /* none */ }
    fetch("/lti/score", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({
        launch: launch, scenario: sid, version: e.version, transport: e.transport,
        answers: record.answers || {}
      })
    }).then(function (response) {
      document.body.dataset.ltiScore = response.ok ? "sent" : "failed";
    }, function () { document.body.dataset.ltiScore = "failed"; });
  });
})();
