"""Golden traces: one file per scenario x version x transport under tests/golden/.

A golden keeps what a reviewer should see change on purpose: each step's kind, actors, method,
id, the exact frame, the English narration, the events and changes, and a digest of the whole
step (state, all languages) so that any other change is caught too. Regenerate on purpose with
`make golden` (python -m tests.golden) and review the diff.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from app.engine.library import default_scenarios_dir, load_library
from app.engine.runner import run_trace

GOLDEN_DIR = Path(__file__).resolve().parent / "golden"


def golden_path(scenario_id: str, version: str, transport: str) -> Path:
    return GOLDEN_DIR / f"{scenario_id}.{version}.{transport}.jsonl"


def canonical(step: dict[str, Any]) -> str:
    return json.dumps(step, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def project(step: dict[str, Any]) -> dict[str, Any]:
    return {
        "index": step["index"],
        "kind": step["kind"],
        "from": step["from"],
        "to": step["to"],
        "method": step["method"],
        "id": step["id"],
        "frame": step["frame"],
        "events": step["events"],
        "changes": step["changes"],
        "narration": step["narration"]["en"],
        "checkpoint": step["checkpoint"] is not None,
        "digest": hashlib.sha256(canonical(step).encode()).hexdigest()[:16],
    }


def render(trace: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(project(s), ensure_ascii=False) + "\n" for s in trace)


def cases() -> list[tuple[str, str, str]]:
    library = load_library(default_scenarios_dir())
    return [
        (s.id, v, t) for s in library.scenarios.values() for v in s.versions for t in s.transports
    ]


def regenerate() -> int:
    library = load_library(default_scenarios_dir())
    GOLDEN_DIR.mkdir(exist_ok=True)
    for old in GOLDEN_DIR.glob("*.jsonl"):
        old.unlink()
    written = 0
    for scenario_id, version, transport in cases():
        trace = run_trace(library.scenarios[scenario_id], version, transport)
        golden_path(scenario_id, version, transport).write_text(render(trace), "utf-8")
        written += 1
    return written


if __name__ == "__main__":
    print(f"wrote {regenerate()} golden traces to {GOLDEN_DIR}")
