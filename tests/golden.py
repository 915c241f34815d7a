"""Golden traces: one file per scenario x version x transport under tests/golden/.

A golden shows everything a step holds, so a reviewer sees what changed: every key of the step
in full (the frame, the events, the narration in en, zh and ru, the checkpoint), and the state
as what changed since the step before (the first step's state in full), one `path: value` per
changed leaf. Each file is indented JSON, so a diff points at the one field that moved.
Regenerate on purpose with `make golden` (python -m tests.golden), which rewrites only the files
whose content changed and removes those of cases that no longer exist; review the diff.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from app.engine.library import default_scenarios_dir, load_library
from app.engine.runner import run_trace

GOLDEN_DIR = Path(__file__).resolve().parent / "golden"
REMOVED = "<removed>"


def golden_path(scenario_id: str, version: str, transport: str) -> Path:
    return GOLDEN_DIR / f"{scenario_id}.{version}.{transport}.json"


def canonical(step: Mapping[str, Any]) -> str:
    return json.dumps(step, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def state_delta(before: Any, after: Any, at: str = "") -> dict[str, Any]:
    """The leaves that differ, by dotted path (lists are leaves: shown whole when changed)."""
    if isinstance(before, dict) and isinstance(after, dict):
        out: dict[str, Any] = {}
        for key in after:
            path = f"{at}.{key}" if at else str(key)
            if key not in before:
                out[path] = after[key]
            else:
                out.update(state_delta(before[key], after[key], path))
        for key in before:
            if key not in after:
                out[f"{at}.{key}" if at else str(key)] = REMOVED
        return out
    return {} if before == after else {at: after}


def project(trace: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    shown = []
    for i, step in enumerate(trace):
        entry = {k: v for k, v in step.items() if k != "state"}
        entry["state" if i == 0 else "stateChanges"] = (
            step["state"] if i == 0 else state_delta(trace[i - 1]["state"], step["state"])
        )
        shown.append(entry)
    return shown


def render(trace: Sequence[Mapping[str, Any]]) -> str:
    return json.dumps(project(trace), ensure_ascii=False, indent=1) + "\n"


def cases() -> list[tuple[str, str, str]]:
    library = load_library(default_scenarios_dir())
    return [
        (s.id, v, t) for s in library.scenarios.values() for v in s.versions for t in s.transports
    ]


def regenerate() -> tuple[int, int]:
    """Rewrite the goldens whose content changed; returns (rewritten, removed)."""
    library = load_library(default_scenarios_dir())
    GOLDEN_DIR.mkdir(exist_ok=True)
    wanted = set()
    rewritten = 0
    for scenario_id, version, transport in cases():
        path = golden_path(scenario_id, version, transport)
        wanted.add(path.name)
        text = render(run_trace(library.scenarios[scenario_id], version, transport))
        if not path.exists() or path.read_text("utf-8") != text:
            path.write_text(text, "utf-8")
            rewritten += 1
    removed = 0
    for old in [*GOLDEN_DIR.glob("*.json"), *GOLDEN_DIR.glob("*.jsonl")]:
        if old.name not in wanted:
            old.unlink()
            removed += 1
    return rewritten, removed


if __name__ == "__main__":
    rewritten, removed = regenerate()
    print(f"{rewritten} golden trace(s) rewritten, {removed} removed, in {GOLDEN_DIR}")
