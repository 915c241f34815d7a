"""What a probe found: one `Run` per version graded, and the report as text or JSON.

The report describes the newest version negotiated (`main`) and lists every version's checks;
its exit status is 0 when all pass, 1 when any fails, 2 when the server could not be reached.
`write_trace` writes the main run's steps as `mcp-lab trace --format jsonl` would.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from app.engine.jsonl import jsonl_lines
from app.engine.step import Step
from app.mcp import versions

from .checks import Check, Session, counted

__all__ = ["ProbeReport", "Run", "report_json", "report_text", "write_trace"]


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
        return 0 if all(c.ok for r in self.runs for c in r.checks) else 1


def report_json(report: ProbeReport) -> dict[str, Any]:
    main = report.main
    if main is None:
        return {
            "server": None,
            "protocolVersion": None,
            "pages": 0,
            "tools": [],
            "checks": [Check("reachable", False, report.unreachable or "no answer").as_json(None)],
        }
    s = main.session
    return {
        "server": s.server_info or None,
        "protocolVersion": s.version,
        "pages": len(s.pages),
        "tools": s.tools,
        "checks": [
            c.as_json(r.session.version or r.session.requested)
            for r in report.runs
            for c in r.checks
        ],
        "versions": [r.session.version for r in report.runs if r.session.version],
    }


def report_text(report: ProbeReport) -> str:
    """Every check of the newest version; for the other versions, what failed."""
    main = report.main
    if main is None:
        return f"{report.target}: unreachable: {report.unreachable}\n"
    info = main.session.server_info
    name = f"{info.get('name', '?')} {info.get('version', '')}".strip()
    lines = [f"{report.target}: {name}"]
    for run in [main, *(r for r in report.runs if r is not main)]:
        s = run.session
        label = s.version or f"{s.requested} (not negotiated)"
        failed = [c for c in run.checks if not c.ok]
        summary = f"{counted(len(s.pages), 'page')}, {counted(len(s.tools), 'tool')}"
        if run is not main:
            summary += f", {len(run.checks) - len(failed)} of {len(run.checks)} checks passed"
        lines.append(f"  {label} over {s.transport}: {summary}")
        for check in run.checks if run is main else failed:
            mark = "ok  " if check.ok else "FAIL"
            lines.append(f"    {mark} {check.id:<17} {check.detail}")
    failures = sum(1 for r in report.runs for c in r.checks if not c.ok)
    lines.append("all checks passed" if not failures else f"{counted(failures, 'check')} failed")
    return "\n".join(lines) + "\n"


def write_trace(report: ProbeReport, path: str) -> None:
    """The main run's steps as JSONL, the bytes `mcp-lab trace --format jsonl` would write."""
    main = report.main
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.writelines(jsonl_lines(main.steps if main is not None else []))
