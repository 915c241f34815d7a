"""A thin blocking stdio shell around the sans-IO MCPServer, so real MCP clients can connect.

`serve_stdio` reads newline-delimited JSON-RPC from a text stream, hands each message to
`MCPServer.receive` and writes every reply as one compact JSON line, flushing after each, until
end of input. It adds only what a transport must: a line that is not JSON gets a -32700 Parse
error with id null and the loop goes on; an unexpected failure inside the core gets -32603 for
that one request instead of killing the process. No threads, no clock, no logging on stdout
(which carries only MCP messages). `build_server` builds the MCPServer for one server of a
scenario file with the same ServerConfig mapping the trace engine uses, so the server a client
talks to here is the very server the lab visualises.
"""

from __future__ import annotations

import json
from typing import Any, TextIO

from app.bounded_json import JsonRefused, read_json
from app.engine.runner import server_config
from app.mcp import jsonrpc
from app.mcp.jsonrpc import Message
from app.mcp.server import MCPServer
from app.serving.catalog import UnknownServer, server_spec

__all__ = ["UnknownServer", "answer_line", "build_server", "serve_stdio"]


def build_server(scenario_id_or_path: str, server_id: str) -> MCPServer:
    """The MCPServer for server `server_id` of a scenario, configured as the engine does.

    Raises ScenarioInvalid for a broken file, FileNotFoundError for an unknown scenario and
    UnknownServer for a server id the scenario does not define.
    """
    spec, _ = server_spec(scenario_id_or_path, server_id)
    return MCPServer(server_config(spec))


# The longest line read as one message; a longer one is answered with a parse error.
MAX_LINE = 4 * 1024 * 1024


def _handle(server: MCPServer, message: Any) -> list[Message]:
    try:
        return server.receive(message)
    except Exception as exc:  # a core bug must not take the transport down with it
        request_id = message.get("id") if isinstance(message, dict) else None
        if not isinstance(request_id, int | str) or isinstance(request_id, bool):
            request_id = None
        if isinstance(message, dict) and "method" in message and "id" not in message:
            return []  # a notification is never answered, not even with an error
        return [
            jsonrpc.error(
                request_id, jsonrpc.INTERNAL_ERROR, f"Internal error: {type(exc).__name__}"
            )
        ]


def answer_batch(server: MCPServer, batch: list[Any]) -> Message | list[Message] | None:
    """A JSON-RPC batch: one reply per request in it, in order (2025-03-26 only).

    Batches existed in 2025-03-26 alone (added there, removed in 2025-06-18), and initialize
    never belongs in one, so a batch before a 2025-03-26 session exists is refused whole (one
    error object); otherwise the replies (an array), or None when it held only notifications.
    """
    if server.legacy_version != "2025-03-26":
        text = "JSON-RPC batches are a 2025-03-26 feature; this session cannot take one"
        return jsonrpc.error(None, jsonrpc.INVALID_REQUEST, text)
    if not batch:
        return jsonrpc.error(None, jsonrpc.INVALID_REQUEST, "An empty batch is not a request")
    replies: list[Message] = []
    for item in batch:
        if isinstance(item, dict) and item.get("method") == "initialize":
            text = "initialize must not be part of a batch"
            replies.append(jsonrpc.error(item.get("id"), jsonrpc.INVALID_REQUEST, text))
            continue
        replies += _handle(server, item)
    return replies or None


def answer_line(server: MCPServer, line: str) -> list[Message | list[Message]]:
    """What the server writes for one line of input: each item is one line out (a batch's
    replies are one line, an array). A line that is not JSON gets a parse error."""
    try:
        message = read_json(line, MAX_LINE)  # bounded: 4,000 '[' are refused, not a crash
    except JsonRefused as exc:
        why = None if exc.reason == "syntax" else str(exc)  # as app.serving.endpoint says it
        return [jsonrpc.error(None, jsonrpc.PARSE_ERROR, "Parse error", why)]
    if isinstance(message, list):
        answer = answer_batch(server, message)
        return [] if answer is None else [answer]
    return list(_handle(server, message))


def serve_stdio(server: MCPServer, stdin: TextIO, stdout: TextIO) -> None:
    """Serve until end of input: one JSON-RPC message per line in, one per line out."""
    while True:
        line = stdin.readline(MAX_LINE + 1)  # a line without end must not fill the memory
        if not line:
            return
        if len(line) > MAX_LINE and not line.endswith("\n"):
            while (rest := stdin.readline(65536)) and not rest.endswith("\n"):
                pass  # the rest of the overlong line: skipped, then answered as one refusal
        if not line.strip():
            continue
        for reply in answer_line(server, line):
            stdout.write(json.dumps(reply, ensure_ascii=False, separators=(",", ":")) + "\n")
            stdout.flush()
