"""`mcp-lab serve` and `package`: the web lab, and a lesson packaged for an LMS."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from app.engine.step import LANGUAGES
from app.mcp import versions


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


def add_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add this job's subcommands to the `mcp-lab` parser."""
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
