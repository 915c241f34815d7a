/* For a course page that embeds MCP Discovery Lab lessons (see docs/EMBEDDING.md): include it
   once, after or before any number of lesson iframes. It sizes each lab iframe to its lesson and
   re-dispatches the lesson's events as a bubbling "mcp-lab" DOM event on that iframe, whose
   `detail` is the message ({source, type, scenario, ..., statement}). A message is accepted
   only from the window of an iframe on this page and from that iframe's own origin. */
(function () {
  "use strict";
  if (window.mcpLabEmbed) return;  /* included twice: one listener is enough */
  window.mcpLabEmbed = { version: 1 };
  function frameOf(source) {
    var frames = document.getElementsByTagName("iframe");
    for (var i = 0; i < frames.length; i++) if (frames[i].contentWindow === source) return frames[i];
    return null;
  }
  window.addEventListener("message", function (event) {
    var data = event.data;
    if (!data || typeof data !== "object" || data.source !== "mcp-lab") return;
    var frame = frameOf(event.source);
    if (!frame || new URL(frame.src, location.href).origin !== event.origin) return;
    if (data.type === "resize") {
      if (typeof data.height === "number" && data.height > 0) frame.style.height = data.height + "px";
      return;
    }
    frame.dispatchEvent(new CustomEvent("mcp-lab", { bubbles: true, detail: data }));
  });
})();
