"""Benchmark: checking messages against their version's official schema.

Takes every message of every trace in the library (each scenario x version x transport) and
times `check_message` over all of them, beside a baseline measured in the same run: one bare
jsonschema validation of each message against its version's `JSONRPCMessage` union (what a
generic validator does, trying each branch). The ratio says what our dispatch to the one
definition a method names, plus the extra rules and readable errors, costs beside that. It
replaces a timed assertion that used to sit in the test suite, where a loaded machine made it
fail. Run: `.venv/bin/python bench/schemas.py`.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.engine.library import default_scenarios_dir, load_library
from app.engine.runner import run_trace
from app.mcp.schema_files import validator
from app.mcp.schemas import check_message

ROUNDS = 5


def library_messages() -> list[tuple[str, dict[str, Any], str]]:
    """(version, message, sender) for every message the library's traces put on the wire."""
    rows = []
    for scenario in load_library(default_scenarios_dir()).scenarios.values():
        for version in scenario.versions:
            for transport in scenario.transports:
                for step in run_trace(scenario, version, transport):
                    message = step.get("message")
                    if isinstance(message, dict):
                        sender = "server" if str(step["from"]).startswith("server") else "client"
                        rows.append((version, message, sender))
    return rows


def envelope_validators(versions: set[str]) -> dict[str, Any]:
    return {version: validator(version, "JSONRPCMessage") for version in versions}


def main() -> None:
    rows = library_messages()
    envelopes = envelope_validators({version for version, _, _ in rows})
    for version, message, sender in rows:  # compile every validator outside the clock
        check_message(message, version, sender=sender)
    ours, baseline = [], []
    for _ in range(ROUNDS):
        start = time.perf_counter()
        for version, message, sender in rows:
            check_message(message, version, sender=sender)
        ours.append(time.perf_counter() - start)
        start = time.perf_counter()
        for version, message, _ in rows:
            envelopes[version].is_valid(message)
        baseline.append(time.perf_counter() - start)
    mine, base = statistics.median(ours), statistics.median(baseline)
    print(f"library: {len(rows)} messages, median of {ROUNDS} rounds")
    print(f"check_message : {mine * 1e6 / len(rows):8.1f} us/message")
    print(f"baseline      : {base * 1e6 / len(rows):8.1f} us/message (envelope is_valid only)")
    print(f"ratio         : {mine / base:8.2f} x the baseline")


if __name__ == "__main__":
    main()
