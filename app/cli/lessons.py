"""`mcp-lab scenarios`, `validate`, `trace` and `example`: the scenario library as data, its
traces, and a script in which the official SDK lives through one."""

from __future__ import annotations

import argparse
import json
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


def add_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add this job's subcommands to the `mcp-lab` parser."""
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
