"""`mcp-lab mcp-server`, `probe` and `tap`: the lab's servers for real clients, and real peers
graded by the spec's words."""

from __future__ import annotations

import argparse

from app.mcp import versions


def cmd_mcp_server(args: argparse.Namespace) -> int:
    """Run one scenario server over stdio or HTTP until the client (or Ctrl-C) ends it."""
    from app.serving.run import run_mcp_server

    return run_mcp_server(args)


def cmd_probe(args: argparse.Namespace) -> int:
    """Grade a real server: its discovery in each version it offers (exit 0, 1 or 2)."""
    from app.probe.run import run_probe

    target = list(args.target)
    if target and target[0] == "--":
        target = target[1:]
    return run_probe(
        target, args.protocol_version, args.format, args.trace, args.timeout, args.strict
    )


def cmd_tap(args: argparse.Namespace) -> int:
    """Relay a real host's session with a real server, record it and grade the host."""
    from app.tap.run import run_tap

    return run_tap(args)


def add_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add this job's subcommands to the `mcp-lab` parser."""
    p = sub.add_parser(
        "mcp-server",
        help="run one scenario server over stdio or HTTP, for any MCP client to connect to",
        description="Serve one server of a scenario as a real MCP server: on stdin/stdout "
        "(newline-delimited JSON-RPC), or over HTTP with Streamable HTTP at /mcp and HTTP+SSE "
        "at /sse, e.g. for the MCP Inspector or an SDK client.",
    )
    p.add_argument("scenario", metavar="ID|PATH")
    p.add_argument("--server", required=True, metavar="SERVER_ID", help="the server's id")
    p.add_argument("--transport", choices=["stdio", "http"], default="stdio")
    p.add_argument("--host", default="127.0.0.1", help="HTTP only (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=3001, help="HTTP only (0: any free port)")
    p.add_argument(
        "--change-every",
        type=float,
        metavar="SECONDS",
        help="apply the scenario's next server_change (then generated ones) this often",
    )
    p.add_argument("--lab", metavar="URL", help="the lab's address for the printed watch link")
    p.add_argument(
        "--lab-port",
        type=int,
        default=0,
        help="stdio only: the port of the session's JSON for /watch (default: any free port)",
    )
    p.add_argument(
        "--report-pid",
        action="store_true",
        help="stdio: say on stderr which pid takes SIGUSR1, for a client that launched this server",
    )
    p.set_defaults(func=cmd_mcp_server)
    p = sub.add_parser(
        "probe",
        help="run the lab's client against a real MCP server and grade its tool discovery",
        description="Probe a real MCP server: `mcp-lab probe URL` (Streamable HTTP) or "
        "`mcp-lab probe -- CMD [ARGS...]` (stdio). Each check is graded as the spec words its "
        "rule: a broken MUST fails, a SHOULD warns, a host's rule or a field the version does "
        "not define is a note. Exit 0 when nothing fails, 1 when something does, 2 when the "
        "server cannot be reached.",
    )
    p.add_argument("--protocol-version", choices=versions.VERSIONS)
    p.add_argument("--format", choices=["text", "json"], default="text")
    p.add_argument("--trace", metavar="FILE", help="write the session as JSONL trace steps")
    p.add_argument("--timeout", type=float, default=30.0, help="seconds to wait for each answer")
    p.add_argument("--strict", action="store_true", help="warnings (a broken SHOULD) fail too")
    p.add_argument("target", nargs=argparse.REMAINDER, metavar="URL | -- CMD [ARGS...]")
    p.set_defaults(func=cmd_probe)
    p = sub.add_parser(
        "tap",
        help="sit between a real MCP host and server, record both sides and grade the host",
        description="A transparent proxy: configure the host to run `mcp-lab tap -- CMD "
        "[ARGS...]` instead of the server (stdio), or to connect to `mcp-lab tap --upstream URL "
        "--port P` (Streamable HTTP and HTTP+SSE). Bytes pass unchanged; every message is "
        "recorded as trace steps, watchable live in `mcp-lab serve`'s /watch, and the host gets "
        "a report card graded by the spec's words. stdio: the report goes to stderr and the exit "
        "status is the server's; HTTP: on Ctrl-C the report goes to stdout, exit 1 when a check "
        "fails.",
    )
    p.add_argument("--upstream", metavar="URL", help="HTTP: the real server's MCP URL")
    p.add_argument("--host", default="127.0.0.1", help="HTTP: where the tap listens")
    p.add_argument("--port", type=int, default=3002, help="HTTP: the tap's port (0: any free)")
    p.add_argument("--format", choices=["text", "json"], default="text")
    p.add_argument("--trace", metavar="FILE", help="write the newest session as JSONL steps")
    p.add_argument("--report", metavar="FILE", help="write the report card here instead")
    p.add_argument("--strict", action="store_true", help="warnings (a broken SHOULD) fail too")
    p.add_argument(
        "--lab-port", type=int, default=0, help="the port of the sessions' JSON for /watch"
    )
    p.add_argument("--lab", metavar="URL", help="the lab's address for the printed watch link")
    p.add_argument("command", nargs=argparse.REMAINDER, metavar="-- CMD [ARGS...]")
    p.set_defaults(func=cmd_tap)
