"""Serving a scenario's server to real MCP clients.

`catalog` is the catalog every session shares and its planned changes; `endpoint` is
MCP over HTTP as a sans-IO endpoint (the door: Origin check and routes), with the transports
behind it (`streamable`, `modern_http`, `http_sse`), the conversations they share
(`conversations`), the HTTP messages they exchange (`http_messages`) and the lab's JSON API
(`lab_api`); `http` and `stdio` are the socket shells that carry it, `stdio_server` the plain
blocking stdio loop; `sessions` records each real client's session as trace steps; `run` is
`mcp-lab mcp-server`.
"""
