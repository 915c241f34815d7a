"""`mcp-lab mcp-server`: one scenario server for real clients, over stdio or HTTP.

Builds the served server, picks the shell for the transport, wires the change timer and SIGUSR1
(apply the next change now) and SIGTERM (stop cleanly), and reports on stderr what it serves and
each change it applies; stdout stays MCP-only on stdio, where the session is recorded for the
watch view and served on a loopback side port (app.serving.stdio_watch). The watch link it
prints names the running lab's real address (app.serving.lab_address).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import signal
import sys
from types import FrameType

from app import guard
from app.engine.scenario import ScenarioInvalid

from .catalog import ServedServer, UnknownServer, load_served
from .endpoint import McpEndpoint
from .http import HttpShell, loopback_origins
from .lab_address import lab_url, watch_url
from .side_api import SideServer

__all__ = ["run_mcp_server"]


def _say(text: str) -> None:
    print(f"mcp-lab: {text}", file=sys.stderr, flush=True)


def _on_signal(number: int, handler: object) -> None:
    """Install a handler where the platform has the signal (SIGUSR1 is POSIX only)."""
    with contextlib.suppress(ValueError, OSError):  # not the main thread, or not supported
        signal.signal(number, handler)  # type: ignore[arg-type]


def run_mcp_server(args: argparse.Namespace) -> int:
    change_every: float | None = args.change_every
    if change_every is not None and change_every <= 0:
        _say("--change-every needs a positive number of seconds")
        return 2
    try:
        served = load_served(args.scenario, args.server, announce_changes=change_every is not None)
    except ScenarioInvalid as exc:
        for error in exc.errors:
            print(error, file=sys.stderr)
        return 1
    except (FileNotFoundError, UnknownServer) as exc:
        _say(str(exc.args[0]))
        return 2
    lab, known = lab_url(getattr(args, "lab", None))
    if args.transport == "http":
        return _serve_http(served, args.host, args.port, change_every, (lab, known))
    lab_port, report_pid = getattr(args, "lab_port", 0), getattr(args, "report_pid", False)
    return _serve_stdio(served, change_every, (lab, known), lab_port, report_pid)


def _watch(lab: tuple[str, bool], served_at: str) -> str:
    """The watch link, with the lab's real address when a lab runs (app.serving.lab_address)."""
    link = watch_url(lab[0], served_at)
    return f"watch it live: {link}" + ("" if lab[1] else " (once `mcp-lab serve` runs there)")


def _serve_stdio(
    served: ServedServer,
    change_every: float | None,
    lab: tuple[str, bool],
    lab_port: int,
    report_pid: bool,
) -> int:
    from .stdio import ChangingStdio
    from .stdio_watch import StdioWatch

    # The session is recorded for the watch view, whose questions come on a side port (stdout
    # is the client's); without one (the port is taken) the server serves all the same.
    watch = StdioWatch(served)
    side: SideServer | None = None
    try:
        side = SideServer(watch, "127.0.0.1", lab_port)
        _say(_watch(lab, side.base))
    except OSError as exc:
        _say(f"no live view: cannot listen on 127.0.0.1:{lab_port}: {exc.strerror or exc}")

    # MCP messages are UTF-8, one per line with "\n", whatever the platform's defaults are.
    for stream in (sys.stdin, sys.stdout):
        if isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(encoding="utf-8", newline="\n")
    try:
        with contextlib.suppress(KeyboardInterrupt):  # Ctrl-C in a terminal is a normal way out
            shell = ChangingStdio(
                served,
                sys.stdin.fileno(),
                sys.stdout,
                change_every=change_every,
                on_change=_say,
                on_line=watch.line,
                on_applied=watch.applied,
            )
            watch.ask_change = shell.request_change
            if hasattr(signal, "SIGUSR1"):
                _on_signal(signal.SIGUSR1, lambda *_: shell.request_change())
                if report_pid:  # a client that launched us (an example script) learns our pid
                    name, pid = served.config.name, os.getpid()
                    _say(f"serving {name} on stdio, pid {pid} (SIGUSR1: next change)")
            shell.serve()
    finally:
        if side is not None:
            side.stop()
    return 0


def _serve_http(
    served: ServedServer, host: str, port: int, change_every: float | None, lab: tuple[str, bool]
) -> int:
    try:
        endpoint = McpEndpoint(served)
        shell = HttpShell(endpoint, host, port, change_every=change_every, on_change=_say)
    except OSError as exc:
        _say(f"cannot listen on {host}:{port}: {exc.strerror or exc}")
        return 2
    # Its own loopback origins, and those LAB_ALLOWED_ORIGINS names (as for `mcp-lab serve`),
    # e.g. a browser-based client on another port that the user trusts.
    allowed = guard.setting(os.environ.get("LAB_ALLOWED_ORIGINS", ""))
    endpoint.origins = loopback_origins(host, shell.port) | allowed
    base = f"http://{host}:{shell.port}"
    name = f"{served.config.name} {served.config.version}"
    _say(f"serving {name} at {base}/mcp (Streamable HTTP) and {base}/sse (HTTP+SSE, 2024-11-05)")
    if change_every is not None:
        _say(f"applying a change every {change_every:g} s ({served.planned} from the scenario)")
    _say(f"POST {base}/lab/change (or kill -USR1) applies the next change now")
    _say(_watch(lab, base))

    def stop(_: int, __: FrameType | None) -> None:
        shell.stop()

    _on_signal(signal.SIGTERM, stop)
    if hasattr(signal, "SIGUSR1"):
        _on_signal(signal.SIGUSR1, lambda *_: shell.request_change())
    with contextlib.suppress(KeyboardInterrupt):
        shell.serve_forever()
    return 0
