"""What a probe found: one `Run` per version graded, and the report as text or JSON.

The report describes the newest version negotiated (`main`) and lists every version's checks,
each with its level and the spec's sentence it rests on; its exit status is 0 when no check
fails (warnings and notes do not, unless `strict` makes warnings fail), 1 when one does, 2 when
the server could not be reached.
`write_trace` writes the main run's steps as `mcp-lab trace --format jsonl` would.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from app.engine.jsonl import jsonl_lines
from app.engine.step import Step
from app.mcp import versions

from .checks import Check, Session, counted
from .levels import failing

__all__ = [
    "ProbeReport",
    "Run",
    "check_lines",
    "report_json",
    "report_text",
    "verdict",
    "write_trace",
]


@dataclass
class Run:
    session: Session
    checks: list[Check]
    steps: list[Step]


@dataclass
class ProbeReport:
    target: str
    runs: list[Run] = field(default_factory=list)
    unreachable: str | None = None
    strict: bool = False  # warnings fail too

    @property
    def main(self) -> Run | None:
        """The run the report describes: the newest version negotiated."""
        graded = [r for r in self.runs if r.session.version in versions.VERSIONS]
        if graded:
            return max(graded, key=lambda r: versions.VERSIONS.index(str(r.session.version)))
        return self.runs[0] if self.runs else None

    @property
    def exit_code(self) -> int:
        if self.unreachable is not None:
            return 2
        failed = any(failing(c, strict=self.strict) for r in self.runs for c in r.checks)
        return 1 if failed else 0


def report_json(report: ProbeReport) -> dict[str, Any]:
    main = report.main
    if main is None:
        return {
            "server": None,
            "protocolVersion": None,
            "pages": 0,
            "tools": [],
            "checks": [Check("reachable", "fail", report.unreachable or "no answer").as_json(None)],
        }
    s = main.session
    return {
        "server": s.server_info or None,
        "protocolVersion": s.version,
        "pages": len(s.pages),
        "tools": s.tools,
        "checks": [
            c.as_json(r.session.version or r.session.requested, strict=report.strict)
            for r in report.runs
            for c in r.checks
        ],
        "versions": [r.session.version for r in report.runs if r.session.version],
    }


MARKS = {"pass": "ok  ", "note": "note", "warn": "WARN", "fail": "FAIL"}


def report_text(report: ProbeReport) -> str:
    """Every check of the newest version; for the other versions, what was not a pass. Each
    finding is followed by the spec's sentence it rests on."""
    main = report.main
    if main is None:
        return f"{report.target}: unreachable: {report.unreachable}\n"
    info = main.session.server_info
    name = f"{info.get('name', '?')} {info.get('version', '')}".strip()
    lines = [f"{report.target}: {name}"]
    for run in [main, *(r for r in report.runs if r is not main)]:
        s = run.session
        label = s.version or f"{s.requested} (not negotiated)"
        shown = run.checks if run is main else [c for c in run.checks if c.level != "pass"]
        summary = f"{counted(len(s.pages), 'page')}, {counted(len(s.tools), 'tool')}"
        if run is not main:
            passes = sum(1 for c in run.checks if c.level == "pass")
            summary += f", {passes} of {len(run.checks)} checks passed"
        lines.append(f"  {label} over {s.transport}: {summary}")
        lines += check_lines(shown)
    lines.append(verdict(report.runs, report.strict))
    return "\n".join(lines) + "\n"


def check_lines(checks: list[Check]) -> list[str]:
    """A check per line; a finding's spec sentence under it (shared by the tap's report card)."""
    lines: list[str] = []
    for check in checks:
        lines.append(f"    {MARKS[check.level]} {check.id:<17} {check.detail}")
        if check.level != "pass" and check.spec is not None:
            spec = check.spec
            lines.append(f'         {spec.version} {spec.page}: "{spec.text}"')
    return lines


def verdict(runs: list[Run], strict: bool) -> str:
    """The last line: how many checks failed, warned, noted."""
    checks = [c for r in runs for c in r.checks]
    tally = {level: sum(1 for c in checks if c.level == level) for level in MARKS}
    said = [counted(tally["fail"], "failure")] if tally["fail"] else []
    said += [counted(tally["warn"], "warning")] if tally["warn"] else []
    said += [counted(tally["note"], "note")] if tally["note"] else []
    if not said:
        return "all checks passed"
    fails = any(failing(c, strict=strict) for c in checks)
    return ", ".join(said) + (" (fails)" if fails else " (passes)")


def write_trace(report: ProbeReport, path: str) -> None:
    """The main run's steps as JSONL, the bytes `mcp-lab trace --format jsonl` would write."""
    main = report.main
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.writelines(jsonl_lines(main.steps if main is not None else []))
