/* The course page's side: listen for the lessons' events (mcp-lab-embed.js re-dispatches them as
   a bubbling "mcp-lab" event on each iframe), show them, and forward each xAPI statement to a
   Learning Record Store. Set LRS to your LRS's statements endpoint to send them. */
(function () {
  "use strict";
  var LRS = null; /* e.g. { url: "https://lrs.example/xapi/statements", auth: "Basic ..." } */
  var scores = {};
  document.addEventListener("mcp-lab", function (event) {
    var e = event.detail;
    var item = document.createElement("li");
    item.textContent = e.scenario + ": " + e.type + " (step " + e.step + " of " + e.total + ")" +
      (e.type === "answered" ? (e.success ? ", right" : ", not right") + (e.firstTry ? " on the first try" : "") : "");
    document.getElementById("events").appendChild(item);
    if (e.type === "completed") {
      scores[e.scenario] = e.score;
      document.getElementById("scores").textContent = Object.keys(scores).map(function (k) {
        return k + ": " + scores[k].raw + "/" + scores[k].max;
      }).join(", ");
    }
    if (LRS) {
      fetch(LRS.url, {
        method: "POST",
        headers: { "Content-Type": "application/json", "X-Experience-API-Version": "1.0.3",
                   "Authorization": LRS.auth },
        body: JSON.stringify(e.statement)
      });
    }
  });
})();
