"""Every shipped scenario under every version and transport matches its golden trace, and the
same file and options always give a byte-identical trace."""

from __future__ import annotations

import json

import pytest

from app.engine.library import default_scenarios_dir, load_library
from app.engine.runner import run_trace
from tests.golden import canonical, cases, golden_path, project
from tests.test_engine_step import problems as step_problems

LIBRARY = load_library(default_scenarios_dir())


@pytest.mark.parametrize(("scenario_id", "version", "transport"), cases())
def test_trace_matches_its_golden_file(scenario_id, version, transport):
    path = golden_path(scenario_id, version, transport)
    assert path.exists(), f"no golden trace {path.name}: run `make golden` and review it"
    trace = run_trace(LIBRARY.scenarios[scenario_id], version, transport)
    assert step_problems(trace) == []  # every trace keeps the typed step contract
    expected = json.loads(path.read_text("utf-8"))
    actual = project(trace)
    for want, got in zip(expected, actual, strict=False):
        assert got == want, f"step {got['index']} differs from {path.name}"
    assert len(actual) == len(expected)


def test_no_golden_file_is_left_over_from_a_removed_case():
    wanted = {golden_path(*case).name for case in cases()}
    present = {p.name for p in golden_path("x", "y", "z").parent.glob("*.json*")}
    assert present <= wanted


def test_a_golden_shows_every_language_and_what_the_state_became():
    [first, second, *_] = json.loads(golden_path("pagination", "2025-11-25", "stdio").read_text())
    assert set(first["narration"]) == {"en", "zh", "ru"} and first["state"]["clients"]
    assert "state" not in second and isinstance(second["stateChanges"], dict)


def test_make_golden_rewrites_only_files_whose_content_changed(tmp_path, monkeypatch):
    import tests.golden as golden

    monkeypatch.setattr(golden, "GOLDEN_DIR", tmp_path)
    monkeypatch.setattr(golden, "cases", lambda: [("pagination", "2025-11-25", "stdio")])
    assert golden.regenerate() == (1, 0)
    path = golden.golden_path("pagination", "2025-11-25", "stdio")
    stamp = path.stat().st_mtime_ns
    (tmp_path / "gone.2025-11-25.stdio.json").write_text("[]")
    assert golden.regenerate() == (0, 1)
    assert path.stat().st_mtime_ns == stamp


@pytest.mark.parametrize("scenario_id", list(LIBRARY.scenarios))
def test_the_same_scenario_gives_a_byte_identical_trace(scenario_id):
    scenario = LIBRARY.scenarios[scenario_id]
    for transport in scenario.transports:
        first = [canonical(s) for s in run_trace(scenario, scenario.default_version, transport)]
        second = [canonical(s) for s in run_trace(scenario, scenario.default_version, transport)]
        assert first == second
