"""`mcp-lab probe`: drive the lab's client against a real server in each version it offers.

Each version is one fresh run (app.probe.driver), graded by app.probe.checks and reported by
app.probe.report; this module is the sweep and the command.

Without --protocol-version the probe starts with the dual-era opening (server/discover first;
a legacy server makes the client fall back to initialize), then tries initialize with each
legacy version, newest first; a version the server only counter-offers away from is not one it
offers, so it is not graded twice. The report describes the newest version offered and lists
every version's checks; the exit status is 0 when no check fails (a broken MUST; with --strict
a broken SHOULD too), 1 when one does, 2 when the server cannot be reached at all.
"""

from __future__ import annotations

import json
import sys

from app.mcp import versions

from .driver import Driver
from .http_peer import HttpPeer
from .peers import Peer, StdioPeer, Unreachable
from .report import ProbeReport, Run, report_json, report_text, write_trace

__all__ = ["ProbeReport", "probe", "report_json", "report_text", "run_probe", "write_trace"]


def probe(
    target: list[str],
    *,
    version: str | None = None,
    timeout: float = 10.0,
    strict: bool = False,
) -> ProbeReport:
    """Probe a server: `target` is a URL (one item) or a command and its arguments."""
    is_url = len(target) == 1 and target[0].startswith(("http://", "https://"))
    report = ProbeReport(target[0] if is_url else " ".join(target), strict=strict)

    def connect() -> Peer:
        return HttpPeer(target[0], timeout=timeout) if is_url else StdioPeer(target)

    plan = [version] if version else [versions.LATEST, *reversed(versions.LEGACY_VERSIONS)]
    runs: list[Run] = []
    for requested in plan:
        try:
            peer = connect()
        except Unreachable as exc:
            report.unreachable = str(exc)
            return report
        try:
            run = Driver(peer, requested, timeout).run()
        except Unreachable as exc:  # HTTP connects on the first POST
            if not runs:
                report.unreachable = str(exc)
                return report
            continue
        finally:
            peer.close()
        if not runs and not any(sender == "server" for sender, _ in run.session.wire):
            report.unreachable = run.session.failure or "the server did not answer"
            return report
        runs.append(run)
    if version is None:
        runs = _offered(runs)
    report.runs = runs
    return report


def _offered(runs: list[Run]) -> list[Run]:
    """In a sweep, one run per version the server offers: a legacy version it counter-offered
    away from, or one already graded, is not graded again; refusals count only when nothing
    was negotiated at all (a legacy server may refuse a version with an error)."""
    kept: list[Run] = []
    seen: set[str] = set()
    for run in runs:
        negotiated, requested = run.session.version, run.session.requested
        if negotiated is None or negotiated in seen:
            continue
        if requested in versions.LEGACY_VERSIONS and negotiated != requested:
            continue
        seen.add(negotiated)
        kept.append(run)
    return kept or runs[:1]


def run_probe(
    target: list[str],
    version: str | None,
    fmt: str,
    trace: str | None,
    timeout: float,
    strict: bool = False,
) -> int:
    if not target:
        print(
            "mcp-lab probe: give a URL, or -- and the command that starts the server",
            file=sys.stderr,
        )
        return 2
    report = probe(target, version=version, timeout=timeout, strict=strict)
    if trace:
        write_trace(report, trace)
    if fmt == "json":
        sys.stdout.write(json.dumps(report_json(report), ensure_ascii=False, indent=2) + "\n")
    else:
        sys.stdout.write(report_text(report))
    return report.exit_code
