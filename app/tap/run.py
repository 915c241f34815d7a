"""`mcp-lab tap`: between a real host and a real server, recording and grading the host.

stdio: `mcp-lab tap [...] -- CMD [ARGS...]` is the command a host starts instead of the server;
it relays (app.tap.stdio_relay) until the server's stdout ends, then writes the report card to
stderr (or --report FILE) and exits with the server's own status, since the host must see the
server's. HTTP: `mcp-lab tap --upstream URL --port P` relays every connection to URL's server
(app.tap.http_relay) until SIGINT or SIGTERM, then prints the report card on stdout (or to
--report FILE) and exits 1 when a check fails (--strict: a warning too), else 0.

Either way the sessions are recorded as trace steps (--trace FILE writes the newest) and served
on a loopback side port (app.serving.side_api, --lab-port, any free port by default) for the
watch view of `mcp-lab serve`, whose link the tap prints on stderr.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import signal
import sys
from collections.abc import Callable
from typing import Any

from app.serving.lab_address import lab_url, watch_url
from app.serving.side_api import SideServer

from .http_relay import BadUpstream, HttpTap
from .log import TapLog
from .report import TapApi, exit_code, report_json, report_text, write_trace
from .stdio_relay import StdioTap

__all__ = ["run_tap"]


def _say(text: str) -> None:
    print(f"mcp-lab tap: {text}", file=sys.stderr, flush=True)


def _on_stop(handler: Callable[[], None]) -> None:
    for number in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(ValueError, OSError):  # not the main thread
            signal.signal(number, lambda *_: handler())


def _report(log: TapLog, args: argparse.Namespace, to: Any) -> None:
    strict = bool(args.strict)
    text = (
        json.dumps(report_json(log, strict), ensure_ascii=False, indent=2) + "\n"
        if args.format == "json"
        else report_text(log, strict)
    )
    if args.report:
        with open(args.report, "w", encoding="utf-8") as f:
            f.write(text)
    else:
        to.write(text)
        to.flush()
    if args.trace:
        write_trace(log, args.trace)


def run_tap(args: argparse.Namespace) -> int:
    command = list(args.command)
    if command and command[0] == "--":
        command = command[1:]
    if bool(command) == bool(args.upstream):
        _say("give -- and the server's command (stdio), or --upstream URL --port P (HTTP)")
        return 2
    log = TapLog(" ".join(command) if command else args.upstream)
    try:
        side = SideServer(TapApi(log), "127.0.0.1", args.lab_port)
    except OSError as exc:
        _say(f"cannot listen on 127.0.0.1:{args.lab_port}: {exc.strerror or exc}")
        return 2
    lab, known = lab_url(args.lab)
    link = watch_url(lab, side.base)
    _say(f"watch it live: {link}" + ("" if known else " (once `mcp-lab serve` runs there)"))
    try:
        return _stdio(command, log, args) if command else _http(log, args)
    finally:
        side.stop()


def _stdio(command: list[str], log: TapLog, args: argparse.Namespace) -> int:
    try:
        tap = StdioTap(command, log)
    except OSError as exc:
        _say(f"cannot start {command[0]}: {exc.strerror or exc}")
        return 2
    _on_stop(tap.stop)
    if hasattr(signal, "SIGUSR1"):  # a served lab server's "change now" goes through the tap
        with contextlib.suppress(ValueError, OSError):
            signal.signal(signal.SIGUSR1, lambda *_: tap.child.send_signal(signal.SIGUSR1))
    status = tap.run()
    _report(log, args, sys.stderr)  # stdout carries the server's bytes only
    return status


def _http(log: TapLog, args: argparse.Namespace) -> int:
    try:
        tap = HttpTap(args.upstream, args.host, args.port, log)
    except BadUpstream as exc:
        _say(str(exc))
        return 2
    except OSError as exc:
        _say(f"cannot listen on {args.host}:{args.port}: {exc.strerror or exc}")
        return 2
    _say(f"relaying http://{args.host}:{tap.port} to {args.upstream}")
    _on_stop(tap.stop)
    tap.serve_forever()
    _report(log, args, sys.stdout)
    return exit_code(log, bool(args.strict))
