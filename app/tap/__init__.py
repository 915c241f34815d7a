"""`mcp-lab tap`: a transparent proxy between a real host and a real server that records the
session in both directions and grades the host (issue 20).

stdio_relay and http_relay copy the bytes (http1 and lines read them on the side, bounded);
http_flows finds the MCP messages of HTTP traffic and the session each belongs to; log records
each session as trace steps through the engine's Recorder, with the sans-IO observer of
app.mcp.observer; card grades the client by the spec's sentences (app.probe.levels); report
prints the card and serves the sessions to the watch view; run is the command."""
