"""The `mcp-lab` command: list, validate and trace scenarios, serve the web lab, run a
scenario's server over stdio for real MCP clients, and print a script that drives one."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from app.engine.jsonl import jsonl_lines
from app.engine.library import load_library, validate
from app.engine.scenario import (
    Scenario,
    ScenarioInvalid,
    default_scenarios_dir,
    load_scenario,
    scenario_path,
)
from app.engine.step import LANGUAGES
from app.engine.textview import render_text
from app.mcp import versions


def _print_lines(text: str) -> None:
    sys.stdout.write(text if text.endswith("\n") else text + "\n")


def cmd_scenarios(args: argparse.Namespace) -> int:
    library = load_library(default_scenarios_dir())
    rows: list[dict[str, Any]] = [
        {
            "id": s.id,
            "title": s.title,
            "summary": s.summary,
            "topics": s.topics,
            "versions": s.versions,
            "transports": s.transports,
            "challenge": "challenge" in s.data,
        }
        for s in library.scenarios.values()
    ]
    if args.format == "json":
        _print_lines(json.dumps(rows, ensure_ascii=False, indent=2))
    else:
        for row in rows:
            _print_lines(f"{row['id']:<28} {row['title']['en']}")
    for error in library.errors:
        print(error, file=sys.stderr)
    return 1 if library.errors else 0


def _paths(arguments: list[str]) -> list[Path]:
    if not arguments:
        return sorted(default_scenarios_dir().glob("*.yaml"))
    found: list[Path] = []
    for item in map(Path, arguments):
        found += sorted(item.glob("*.yaml")) if item.is_dir() else [item]
    return found


def cmd_validate(args: argparse.Namespace) -> int:
    failed = False
    paths = _paths(args.paths)
    for path in paths:
        _, errors = validate(path)  # the same verdict the web library acts on
        for error in errors:
            _print_lines(str(error))
        failed = failed or bool(errors)
    if not failed:
        print(f"{len(paths)} scenario file{'' if len(paths) == 1 else 's'} valid", file=sys.stderr)
    return 1 if failed else 0


def _resolve(target: str) -> Scenario:
    try:
        return load_scenario(scenario_path(target))
    except FileNotFoundError:
        raise SystemExit(f"mcp-lab: no scenario {target!r} (try `mcp-lab scenarios`)") from None


def _scenario(args: argparse.Namespace) -> Scenario | int:
    """The scenario the arguments name, or 1 once its file's errors are said."""
    try:
        return _resolve(args.scenario)
    except ScenarioInvalid as exc:
        for error in exc.errors:
            print(error, file=sys.stderr)
        return 1


def _version(args: argparse.Namespace, scenario: Scenario) -> str | int:
    """The version to run (and args.transport settled), or 2 once it is said that the scenario
    lacks the version or transport asked for."""
    args.transport = args.transport or ("stdio" if "stdio" in scenario.transports else "http")
    version: str = args.protocol_version or scenario.default_version
    if version not in scenario.versions:
        print(
            f"mcp-lab: {scenario.id} does not run under {version}; it runs under "
            f"{', '.join(scenario.versions)}",
            file=sys.stderr,
        )
        return 2
    if args.transport not in scenario.transports:
        print(f"mcp-lab: {scenario.id} does not run over {args.transport}", file=sys.stderr)
        return 2
    return version


def cmd_trace(args: argparse.Namespace) -> int:
    from app.engine.runner import run_trace

    scenario = _scenario(args)
    if isinstance(scenario, int):
        return scenario
    if args.what_if is not None:
        return _trace_what_if(args, scenario)
    version = _version(args, scenario)
    if isinstance(version, int):
        return version
    trace = run_trace(scenario, version, args.transport)
    if args.format == "jsonl":
        sys.stdout.writelines(jsonl_lines(trace))
    else:
        _print_lines(render_text(trace, args.lang, scenario))
    return 0


def _trace_what_if(args: argparse.Namespace, scenario: Scenario) -> int:
    """`trace ID --what-if VALUE`: the what-if's trace, printed like any other."""
    from app.engine.whatif import WhatIfError, load, run_whatif

    try:
        whatif = load(args.what_if)
        if whatif.scenario != scenario.id:
            print(
                f"mcp-lab: the what-if changes {whatif.scenario!r}, not {scenario.id!r}",
                file=sys.stderr,
            )
            return 2
        for given, own, name in (
            (args.protocol_version, whatif.version, "--protocol-version"),
            (args.transport, whatif.transport, "--transport"),
        ):
            if given not in (None, own):
                print(f"mcp-lab: the what-if runs with {own}; drop {name}", file=sys.stderr)
                return 2
        run = run_whatif(whatif, {scenario.id: scenario})
    except WhatIfError as exc:
        print(f"mcp-lab: {exc}", file=sys.stderr)
        return 2
    if args.format == "jsonl":
        sys.stdout.writelines(jsonl_lines(run.trace))
    else:
        _print_lines(render_text(run.trace, args.lang, run.scenario))
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    from app.web.server import ServeError, serve  # type: ignore[import-not-found,unused-ignore]

    if args.trace:
        missing = [path for path in args.trace if not Path(path).is_file()]
        if missing:
            print(f"mcp-lab: no trace file {missing[0]!r}", file=sys.stderr)
            return 2
        # The app reads LAB_-prefixed settings from the environment (JSON values), also in a
        # server worker process: the recorded sessions open at /recorded and in the viewer.
        os.environ["LAB_TRACE_FILES"] = json.dumps([str(Path(p).resolve()) for p in args.trace])
    from app.serving.lab_address import announce, withdraw

    announce(args.host, args.port)  # so served servers and taps print a watch link that opens
    try:
        serve(args.host, args.port, args.workers)
    except ServeError as exc:
        print(f"mcp-lab: {exc}", file=sys.stderr)
        return 2
    finally:
        withdraw()
    return 0


def cmd_package(args: argparse.Namespace) -> int:
    """`package ID --scorm 1.2|2004 --base-url URL --output FILE.zip`: the viewer's download."""
    from app.scorm.package import lab_address
    from app.web.factory import create_app
    from app.web.scorm import Refused, package

    try:
        lab = lab_address(args.base_url)
    except ValueError as exc:
        print(f"mcp-lab: --base-url {exc}", file=sys.stderr)
        return 2
    app = create_app()
    with app.test_request_context(base_url=lab):
        try:
            lesson, data = package(
                args.scenario, args.scorm, args.lang, args.protocol_version, args.transport, lab
            )
        except LookupError:
            print(
                f"mcp-lab: no scenario {args.scenario!r} (try `mcp-lab scenarios`)", file=sys.stderr
            )
            return 2
        except Refused as exc:
            print(f"mcp-lab: {exc}", file=sys.stderr)
            return 2
    try:
        Path(args.output).write_bytes(data)
    except OSError as exc:
        print(f"mcp-lab: cannot write {args.output}: {exc.strerror}", file=sys.stderr)
        return 2
    print(
        f"{args.output}: {lesson.edition.name}, {lesson.sid} ({lesson.version}, "
        f"{lesson.transport}, {lesson.lang}) from {lab}/embed",
        file=sys.stderr,
    )
    return 0


def cmd_example(args: argparse.Namespace) -> int:
    """Print a Python script in which the official SDK lives through the lesson for real."""
    from app.examples.script import example_script

    scenario = _scenario(args)
    if isinstance(scenario, int):
        return scenario
    version = _version(args, scenario)
    if isinstance(version, int):
        return version
    sys.stdout.write(example_script(scenario, version, args.transport, args.lang))
    return 0


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


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="mcp-lab", description="MCP Discovery Lab")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("scenarios", help="list the scenario library")
    p.add_argument("--format", choices=["text", "json"], default="text")
    p.set_defaults(func=cmd_scenarios)
    p = sub.add_parser("validate", help="check scenario files (schema and meaning)")
    p.add_argument("paths", nargs="*", metavar="PATH")
    p.set_defaults(func=cmd_validate)
    p = sub.add_parser("trace", help="run a scenario and print its steps")
    p.add_argument("scenario", metavar="ID|PATH")
    p.add_argument("--protocol-version", choices=versions.VERSIONS)
    p.add_argument(
        "--transport", choices=["stdio", "http"], help="default stdio (http if it runs only there)"
    )
    p.add_argument("--format", choices=["jsonl", "text"], default="text")
    p.add_argument("--lang", choices=LANGUAGES, default="en")
    p.add_argument(
        "--what-if",
        metavar="VALUE",
        help="run a what-if of the scenario: a whatif= value, a link holding one, or a file "
        "(docs/WHATIF.md); its version and transport are its own",
    )
    p.set_defaults(func=cmd_trace)
    p = sub.add_parser(
        "example",
        help="print a Python script: the official SDK against mcp-lab mcp-server, step by step",
        description="Print a complete Python script in which the official MCP Python SDK lives "
        "through the lesson against `mcp-lab mcp-server ID` (stdio: it launches it; http: it "
        "connects to the URLs its docstring gives) and prints what it sees at each step.",
    )
    p.add_argument("scenario", metavar="ID|PATH")
    p.add_argument("--protocol-version", choices=versions.VERSIONS)
    p.add_argument(
        "--transport", choices=["stdio", "http"], help="default stdio (http if it runs only there)"
    )
    p.add_argument("--lang", choices=LANGUAGES, default="en", help="language of its comments")
    p.set_defaults(func=cmd_example)
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
        "package",
        help="write a lesson as a SCORM package for an LMS",
        description="Write a SCORM 1.2 or 2004 (4th edition) package whose launch page shows "
        "the lesson from the lab at --base-url and reports progress, answers and the score to "
        "the LMS (docs/SCORM.md). The lab must let the LMS frame it (LAB_FRAME_ANCESTORS).",
    )
    p.add_argument("scenario", metavar="ID")
    p.add_argument("--scorm", choices=["1.2", "2004"], required=True)
    p.add_argument(
        "--base-url", required=True, metavar="URL", help="the lab's address students reach"
    )
    p.add_argument("--output", required=True, metavar="FILE.zip")
    p.add_argument("--lang", choices=LANGUAGES, default="en")
    p.add_argument("--protocol-version", choices=versions.VERSIONS)
    p.add_argument("--transport", choices=["stdio", "http"])
    p.set_defaults(func=cmd_package)
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
    p = sub.add_parser(
        "serve",
        help="serve the web lab",
        description="Serve the lab with gunicorn's gevent worker. It binds 127.0.0.1 (this "
        "machine only) unless --host says otherwise.",
    )
    p.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to bind (default 127.0.0.1; 0.0.0.0 exposes the lab to the network)",
    )
    p.add_argument("--port", type=int, default=5000)
    p.add_argument(
        "--trace",
        action="append",
        metavar="FILE",
        help="also open this recorded session (a JSONL trace, e.g. from mcp-lab probe --trace)",
    )
    p.add_argument(
        "--workers",
        type=int,
        default=1,
        help="worker processes (default 1; more need LAB_REDIS_URL for shared rooms)",
    )
    p.set_defaults(func=cmd_serve)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except BrokenPipeError:  # `mcp-lab trace ... | head` is fine
        return 0


if __name__ == "__main__":
    raise SystemExit(main())
