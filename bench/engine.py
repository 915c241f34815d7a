"""Benchmark: trace the whole scenario library (every scenario x version x transport).

Prints steps per second and the library's total time, beside a baseline measured in the same
run: serialising the same steps to JSON once (what any consumer of a trace pays anyway). The
ratio says how many JSON encodings one engine step costs. Run: `.venv/bin/python bench/engine.py`.
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.engine.library import Library, default_scenarios_dir, load_library
from app.engine.runner import run_trace

ROUNDS = 5


def trace_library(library: Library) -> list[dict]:
    steps: list[dict] = []
    for scenario in library.scenarios.values():
        for version in scenario.versions:
            for transport in scenario.transports:
                steps += run_trace(scenario, version, transport)
    return steps


def main() -> None:
    engine_times, baseline_times = [], []
    steps: list[dict] = []
    library = load_library(default_scenarios_dir())  # loading is not tracing: done once
    for _ in range(ROUNDS):
        start = time.perf_counter()
        steps = trace_library(library)
        engine_times.append(time.perf_counter() - start)
        start = time.perf_counter()
        for step in steps:
            json.dumps(step, ensure_ascii=False)
        baseline_times.append(time.perf_counter() - start)
    engine, baseline = statistics.median(engine_times), statistics.median(baseline_times)
    print(f"library: {len(steps)} steps, median of {ROUNDS} rounds")
    print(f"engine   : {engine * 1000:8.1f} ms  {len(steps) / engine:10.0f} steps/s")
    rate = len(steps) / baseline
    print(f"baseline : {baseline * 1000:8.1f} ms  {rate:10.0f} steps/s (json.dumps of each step)")
    print(f"ratio    : {engine / baseline:8.2f} x the baseline")


if __name__ == "__main__":
    main()
