"""What a tap reports: each client's report card as text or JSON, its trace, and the same data
for the watch view (`TapApi`, served on the side port by app.serving.side_api).

The text report lists, per session, the client (its clientInfo), its transport and version, then
every check with its level and, under a finding, the spec's sentence it rests on (the lines
`mcp-lab probe` prints, app.probe.report). The JSON report is `{"upstream", "sessions": [{"id",
"client", "protocolVersion", "transport", "started", "steps", "checks": [...], "unread"}],
"notes"}` with
each check as probe gives it. `write_trace` writes the newest session's steps as `mcp-lab
trace --format jsonl` would.
"""

from __future__ import annotations

from typing import Any

from app.engine import observed
from app.engine.jsonl import jsonl_lines
from app.probe.levels import failing
from app.probe.report import check_lines
from app.probe.session import counted

from .log import TapLog, TapSession

__all__ = ["TapApi", "exit_code", "report_json", "report_text", "write_trace"]


def _sessions(log: TapLog) -> list[TapSession]:
    with log.lock:
        return list(log.sessions.values())


def session_json(session: TapSession, strict: bool = False) -> dict[str, Any]:
    mirror = session.observer.mirror
    version = session.version
    return {
        "id": session.key,
        "client": dict(mirror.client_info),
        "protocolVersion": version,
        "transport": session.transport,
        "started": session.started,
        "steps": len(session.steps),
        "checks": [c.as_json(version, strict=strict) for c in session.checks()],
        "unread": list(session.notes),  # messages forwarded that the tap could not read
    }


def report_json(log: TapLog, strict: bool = False) -> dict[str, Any]:
    with log.lock:
        return {
            "upstream": log.upstream,
            "sessions": [session_json(s, strict) for s in _sessions(log)],
            "notes": list(log.notes),
        }


def report_text(log: TapLog, strict: bool = False) -> str:
    with log.lock:
        sessions = _sessions(log)
        lines = [f"mcp-lab tap: {log.upstream}"]
        if not sessions:
            lines.append("  no client connected")
        tally = {"fail": 0, "warn": 0, "note": 0}
        fails = False
        for s in sessions:
            label = observed.label(s.observer.mirror)
            version = s.version or "no version negotiated"
            lines.append(f"  {label} over {s.transport}, {version} (since {s.started})")
            checks = s.checks()
            lines += check_lines(checks)
            lines += [f"    forwarded unread, {note}" for note in s.notes]
            for c in checks:
                if c.level in tally:
                    tally[c.level] += 1
                fails = fails or failing(c, strict=strict)
        lines += [f"  note: {note}" for note in log.notes]
    words = {"fail": "failure", "warn": "warning", "note": "note"}
    said = [counted(n, words[level]) for level, n in tally.items() if n]
    lines.append(", ".join(said) + (" (fails)" if fails else " (passes)") if said else "all good")
    return "\n".join(lines) + "\n"


def exit_code(log: TapLog, strict: bool = False) -> int:
    """1 when a check of any session fails (with `strict`, a warning too), else 0."""
    with log.lock:
        bad = any(failing(c, strict=strict) for s in _sessions(log) for c in s.checks())
    return 1 if bad else 0


def write_trace(log: TapLog, path: str) -> None:
    """The newest session's steps as JSONL."""
    sessions = _sessions(log)
    with log.lock:
        steps = list(sessions[-1].steps) if sessions else []
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.writelines(jsonl_lines(steps))


class TapApi:
    """The tap's sessions for the watch view: the served server's /lab/* answers, no changes,
    and each session's report card at /lab/card?session=ID."""

    def __init__(self, log: TapLog) -> None:
        self.log = log

    def sessions(self) -> dict[str, Any]:
        with self.log.lock:
            return {
                "revision": self.log.revision,
                "server": self.log.server(),
                "tap": True,
                "sessions": self.log.summary(),
            }

    def steps(self, key: str, since: int) -> list[Any] | None:
        return self.log.steps(key, since)

    def change(self) -> dict[str, Any] | None:
        return None  # a tap changes nothing: the catalog is the real server's

    def extra(self, path: str, query: dict[str, list[str]]) -> Any | None:
        if path != "/lab/card":
            return None
        key = (query.get("session") or [""])[0]
        with self.log.lock:
            found = self.log.sessions.get(key)
            return session_json(found) if found is not None else None
