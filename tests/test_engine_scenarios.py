"""Every scenario in the library replays headless and keeps its promises: checkpoint answers
derived from the trace, expected outcomes, misconceptions tied to real steps, three languages,
schema-valid messages. And the checks themselves fail when a scenario lies."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
import yaml

from app.engine.checks import check_scenario, check_trace
from app.engine.library import default_scenarios_dir, load_library
from app.engine.runner import run_trace
from app.engine.scenario import Scenario, load_scenario

LIBRARY = load_library(default_scenarios_dir())
ISSUE_IDS = [
    "intro",
    "handshake",
    "pagination",
    "cache",
    "list-changed-add",
    "list-changed-remove",
    "list-changed-during-refresh",
    "no-list-changed",
    "stale-host",
    "call-retry",
    "collisions",
    "access-control",
    "eras",
]


def test_the_library_loads_without_errors():
    assert LIBRARY.errors == []


@pytest.mark.parametrize("scenario_id", list(LIBRARY.scenarios))
def test_scenario_keeps_every_promise_under_every_version_and_transport(scenario_id):
    assert check_scenario(LIBRARY.scenarios[scenario_id]) == []


@pytest.mark.parametrize("scenario_id", ISSUE_IDS)
def test_the_lesson_library_has_the_scenario(scenario_id):
    assert scenario_id in LIBRARY.scenarios, f"{scenario_id} is missing from scenarios/"


def _edited(scenario: Scenario, edit) -> Scenario:
    data = copy.deepcopy(scenario.data)
    edit(data)
    return Scenario(scenario.id, scenario.path, data)


def test_a_wrong_answer_key_fails_the_checks():
    pagination = LIBRARY.scenarios["pagination"]

    def lie(data):
        for action in data["script"]:
            if "checkpoint" in action:
                action["checkpoint"]["answer"] = (action["checkpoint"]["answer"] + 1) % 3
                return

    trace = run_trace(_edited(pagination, lie), "2025-11-25", "stdio")
    problems = check_trace(_edited(pagination, lie), trace)
    assert any("the key says" in message for _, message in problems)


def test_a_broken_expectation_and_a_dangling_misconception_fail_the_checks(tmp_path: Path):
    pagination = LIBRARY.scenarios["pagination"]
    data = copy.deepcopy(pagination.data)
    data["expect"]["modelTools"] = ["files__read_file"]
    data["misconceptions"][0]["refutedBy"] = {"kind": "cache-hit"}
    path = tmp_path / "pagination.yaml"
    path.write_text(yaml.safe_dump(data, allow_unicode=True), "utf-8")
    errors = {e.field: str(e) for e in check_scenario(load_scenario(path))}
    assert "expect.modelTools" in errors
    assert "no step of any version" in errors["misconceptions.0.refutedBy"]


def test_a_myth_needs_refuting_in_one_run_only():
    handshake = LIBRARY.scenarios["handshake"]
    counter = {
        "kind": "response",
        "method": "initialize",
        "events": {"$contains": {"kind": "counter-offer"}},
    }
    myth = next(m for m in handshake.misconceptions if m["refutedBy"] == counter)
    from app.engine.checks import refuted_myths

    index = handshake.misconceptions.index(myth)
    assert index not in refuted_myths(handshake, run_trace(handshake, "2024-11-05", "stdio"))
    assert index in refuted_myths(handshake, run_trace(handshake, "2025-11-25", "stdio"))
    assert check_scenario(handshake) == []


def test_every_step_is_narrated_in_three_languages():
    for scenario in LIBRARY.scenarios.values():
        for step in run_trace(scenario, scenario.default_version, "stdio"):
            assert all(step["narration"][lang].strip() for lang in ("en", "zh", "ru"))
            assert step["narration"]["zh"] != step["narration"]["en"], step["narration"]


def test_a_checkpoint_sits_on_the_step_before_the_moment_it_asks_about():
    trace = run_trace(LIBRARY.scenarios["pagination"], "2025-06-18", "http")
    asked = [s for s in trace if s["checkpoint"]]
    assert len(asked) >= 2
    moment = trace[asked[0]["index"] + 1]
    assert moment["method"] == "tools/list" and moment["message"]["params"]["cursor"]
    assert {"question", "choices", "answer"} <= set(asked[0]["checkpoint"])
    assert set(asked[0]["checkpoint"]["question"]) == {"en", "zh", "ru"}


def test_the_step_cap_ends_in_a_terminal_step(tmp_path: Path):
    trace = run_trace(LIBRARY.scenarios["pagination"], "2025-11-25", "stdio", max_steps=5)
    assert len(trace) == 6 and trace[-1]["kind"] == "terminal"
    assert "5" in trace[-1]["narration"]["en"]


def test_hostile_tool_text_travels_through_the_engine_as_data(tmp_path: Path):
    data = yaml.safe_load(Path(LIBRARY.scenarios["pagination"].path).read_text("utf-8"))
    data["id"] = "hostile"
    data["servers"][0]["tools"] = [
        {
            "name": "<img src=x onerror=alert(1)>",
            "description": "\u0007\x1b[2J\u202e",
            "inputSchema": {"type": "object"},
        },
        {"name": "n" * 10_240, "description": "d" * 10_240, "inputSchema": {"type": "object"}},
        {"name": "𝔘𝔫𝔦😀", "description": "控制\ttab", "inputSchema": {"type": "object"}},
    ]
    data["script"] = [{"connect": "files"}, {"list_tools": "files"}, {"model_request": "go"}]
    data.pop("expect"), data.pop("misconceptions")
    path = tmp_path / "hostile.yaml"
    path.write_text(yaml.safe_dump(data, allow_unicode=True), "utf-8")
    scenario = load_scenario(path)
    for version in ("2024-11-05", "2026-07-28"):
        trace = run_trace(scenario, version, "http")
        cached = trace[-1]["state"]["clients"]["files"]["cache"]["tools"]
        assert [t["name"] for t in cached] == [t["name"] for t in data["servers"][0]["tools"]]
        model = [t["name"] for t in trace[-1]["state"]["model"]["tools"]]
        assert all(len(n) <= 64 for n in model) and len(set(model)) == 3


def test_matcher_paths_reach_keys_that_contain_dots():
    from app.engine.matcher import matches

    trace = run_trace(LIBRARY.scenarios["pagination"], "2026-07-28", "stdio")
    ack = next(s for s in trace if s["method"] == "notifications/subscriptions/acknowledged")
    key = "message.params._meta[io.modelcontextprotocol/subscriptionId]"
    assert matches(
        ack, {key: ack["message"]["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"]}
    )
    assert not matches(ack, {key: "nope"})


def test_the_model_cannot_call_a_tool_it_was_never_given():
    stale = LIBRARY.scenarios["pagination"]

    def call_unseen(data):
        data["script"] = [
            {"connect": "files"},
            {"list_tools": "files"},
            {"model_request": "first"},
            {
                "server_change": "files",
                "add": [{"name": "fresh", "inputSchema": {"type": "object"}}],
            },
            {"call_tool": "files__fresh", "arguments": {}},
        ]

    trace = run_trace(_edited(stale, call_unseen), "2025-11-25", "stdio")
    assert "files/fresh" in [r["qualified"] for r in trace[-1]["state"]["host"]["tools"]]
    assert not any(s["method"] == "tools/call" for s in trace)
    assert any("never given" in line["en"] for line in trace[-1]["state"]["console"])


def test_a_list_changed_from_a_server_that_never_declared_it_is_reported():
    scenario = LIBRARY.scenarios["list-changed-add"]
    trace = run_trace(scenario, "2025-11-25", "stdio")
    note = next(s for s in trace if s["method"] == "notifications/tools/list_changed")
    sid = note["from"].split(":")[1]
    forged = copy.deepcopy(note)
    forged["state"]["clients"][sid]["serverCapabilities"] = {"tools": {}}
    problems = check_trace(scenario, [*trace[: note["index"]], forged, *trace[note["index"] + 1 :]])
    assert any("never declared tools.listChanged" in message for _, message in problems)


def test_narration_on_an_action_that_shows_no_step_is_reported():
    pagination = LIBRARY.scenarios["pagination"]

    def silent(data):
        data["script"].insert(2, {"list_tools": "files", "wait": True, "say": data["title"]})
        data["script"].insert(2, {"advance_clock": 5, "transports": ["http"], "say": data["title"]})

    edited = _edited(pagination, silent)
    stdio = check_trace(edited, run_trace(edited, "2025-11-25", "stdio"))
    http = check_trace(edited, run_trace(edited, "2025-11-25", "http"))
    assert (["script", 3, "say"], "its action shows no step under 2025-11-25 over stdio") in stdio
    assert not any(path == ["script", 2, "say"] for path, _ in stdio)  # skipped: http only
    clock = [s for s in run_trace(edited, "2025-11-25", "http") if s["kind"] == "clock"]
    assert len(clock) == 1 and clock[0]["action"] == 2
    assert not any(path[:2] == ["script", 2] for path, _ in http)


def test_every_verb_the_schema_accepts_has_an_action_and_no_more():
    from app.engine.actions import VERBS
    from app.engine.scenario import ACTION_VERBS

    assert set(VERBS) == set(ACTION_VERBS)


def _with_header_tools(data):
    del data["expect"]  # the model gets more tools than the lesson promises
    sql = {
        "name": "execute_sql",
        "description": "Run SQL in a region.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "region": {"type": "string", "x-mcp-header": "Region"},
                "query": {"type": "string"},
            },
        },
    }
    average = {
        "name": "average",
        "description": "A number cannot be mirrored.",
        "inputSchema": {
            "type": "object",
            "properties": {"x": {"type": "number", "x-mcp-header": "X"}},
        },
    }
    data["script"] += [
        {"server_change": "files", "add": [sql, average]},
        {"model_request": "Query Tokyo"},
        {
            "call_tool": "files__execute_sql",
            "arguments": {"region": "東京", "query": "SELECT 1"},
        },
    ]


@pytest.mark.parametrize("transport", ["http", "stdio"])
def test_the_runner_mirrors_x_mcp_header_on_http_and_drops_invalid_tools(transport):
    scenario = _edited(LIBRARY.scenarios["eras"], _with_header_tools)
    trace = run_trace(scenario, "2026-07-28", transport)
    model_tools = trace[-1]["state"]["model"]["tools"]
    names = {t["name"] for t in model_tools}
    assert "files__execute_sql" in names
    assert ("files__average" in names) == (transport == "stdio")
    dropped = [e for s in trace for e in s["events"] if e["kind"] == "tool-dropped"]
    assert [e["name"] for e in dropped] == (["average"] if transport == "http" else [])
    if transport == "http":
        step = next(s for s in trace if any(e["kind"] == "tool-dropped" for e in s["events"]))
        assert "x-mcp-header" in step["narration"]["en"] and "average" in step["narration"]["ru"]
        assert any("average left out" in line["en"] for line in trace[-1]["state"]["console"])
    call = next(s for s in trace if s["kind"] == "request" and s["method"] == "tools/call")
    mirrored = "Mcp-Param-Region: =?base64?5p2x5Lqs?=\r\n"
    assert (mirrored in call["frame"]) == (transport == "http")
    assert check_trace(scenario, trace) == []


def test_a_file_only_the_fast_yaml_loader_reads_is_reported_not_raised(tmp_path: Path):
    """`id<TAB>:` loads with libyaml but the pure composer refuses it (found by the fuzz test):
    the meaning checks compose the file too, and must report that with its line."""
    from app.engine.library import validate

    source = (Path(__file__).resolve().parents[1] / "scenarios" / "intro.yaml").read_text("utf-8")
    target = tmp_path / "intro.yaml"
    target.write_text(source.replace("id:", "id\t:", 1), "utf-8")
    scenario, errors = validate(target)
    if scenario is None:
        assert errors and str(errors[0]).startswith("intro.yaml:1:")
    else:
        assert errors == []
