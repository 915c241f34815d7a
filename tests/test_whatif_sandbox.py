"""Running a what-if as a student would: the same link gives the same trace twice, undo takes
the last change back, the first step that differs is found and the counts say what changed,
the base's questions are hidden once the trace differs, impossible moves get a sentence in
every language, runs are capped, and "Save as scenario" writes a file `mcp-lab validate`
accepts."""

from __future__ import annotations

import json

import pytest

from app.cli import main
from app.engine.library import default_scenarios_dir, load_library
from app.engine.whatif import (
    WhatIf,
    WhatIfError,
    decode,
    describe,
    encode,
    model,
    run_whatif,
    try_change,
)
from app.engine.whatif.save import saved_data, to_yaml

LIBRARY = load_library(default_scenarios_dir()).scenarios
PAGINATION = WhatIf("pagination", "2025-11-25", "stdio")
LIST_CHANGED = WhatIf("list-changed-add", "2025-11-25", "stdio")


def jsonl(trace) -> list[str]:
    return [json.dumps(step, sort_keys=True, ensure_ascii=False) for step in trace]


def test_the_same_link_gives_the_same_trace_twice():
    whatif = PAGINATION.with_change({"change": "pageSize", "server": "files", "value": 2})
    whatif = whatif.with_change({"change": "loseNext", "after": 8})
    value = encode(whatif)
    first = run_whatif(decode(value), LIBRARY)
    second = run_whatif(decode(value), load_library(default_scenarios_dir()).scenarios)
    assert jsonl(first.trace) == jsonl(second.trace)
    assert first.summary() == second.summary()


def test_a_smaller_page_makes_more_round_trips_and_the_difference_is_marked_where_it_starts():
    run = run_whatif(
        PAGINATION.with_change({"change": "pageSize", "server": "files", "value": 2}), LIBRARY
    )
    first = run.comparison.firstDifference
    assert first is not None
    assert run.trace[first]["method"] == "tools/list" and run.trace[first]["kind"] == "response"
    assert run.base_trace[first]["message"] != run.trace[first]["message"]
    base, mine = run.comparison.base, run.comparison.whatif
    assert mine.lists == base.lists + 1  # 8 tools: 4 pages of 2 against 3 pages of 3
    assert mine.roundTrips == base.roundTrips + 1
    assert mine.messages == base.messages + 2 and mine.bytes > base.bytes
    assert mine.modelTools == base.modelTools  # the model ends up with the same eight tools


def test_questions_are_hidden_while_the_trace_differs_and_kept_when_it_does_not():
    changed = run_whatif(
        PAGINATION.with_change({"change": "pageSize", "server": "files", "value": 2}), LIBRARY
    )
    assert changed.questions_hidden and changed.base_questions == 2
    assert not any(s["checkpoint"] for s in changed.trace)
    same = run_whatif(
        PAGINATION.with_change({"change": "pageSize", "server": "files", "value": 3}), LIBRARY
    )
    assert same.comparison.firstDifference is None and not same.questions_hidden
    assert sum(1 for s in same.trace if s["checkpoint"]) == 2
    assert same.summary()["questionsHidden"] is False


def test_steps_before_the_difference_keep_the_lesson_s_narration_and_later_notes_say_so():
    whatif = WhatIf(
        "no-list-changed", "2025-11-25", "stdio", ({"change": "wait", "after": 5, "seconds": 1},)
    )
    run = run_whatif(whatif, LIBRARY)
    assert run.comparison.firstDifference == 6
    for index in range(6):
        assert run.trace[index]["narration"] == run.base_trace[index]["narration"]
    assert run.trace[6]["kind"] == "clock" and run.trace[6]["narration"]["en"].startswith(
        "1 second passes"
    )
    notes = [
        s for s in run.trace[6:] if s["action"] >= 0 and "note" in run.draft.script[s["action"]]
    ]
    assert len(notes) == 2
    for note in notes:
        assert note["narration"]["en"].startswith("(The lesson wrote this")
        assert note["narration"]["zh"].startswith("（这段说明")


def test_undo_takes_back_the_last_change_only():
    whatif = LIST_CHANGED.with_change({"change": "cache", "value": False})
    longer = whatif.with_change({"change": "refreshOnListChanged", "value": False})
    assert (
        longer.undo() == whatif
        and whatif.undo() == LIST_CHANGED
        and LIST_CHANGED.undo() == LIST_CHANGED
    )
    assert jsonl(run_whatif(longer.undo(), LIBRARY).trace) == jsonl(
        run_whatif(whatif, LIBRARY).trace
    )


def test_an_intervention_lands_right_after_the_step_on_show():
    base = run_whatif(LIST_CHANGED, LIBRARY).trace
    page = next(s["index"] for s in base if s["method"] == "tools/list" and s["kind"] == "request")
    longer, run = try_change(
        LIST_CHANGED, {"change": "restartServer", "after": page, "server": "orders"}, LIBRARY
    )
    assert longer.moves == 1
    assert run.comparison.firstDifference == page + 1
    assert run.trace[page + 1]["events"] == [{"kind": "server-restarted", "lost": 1}]
    assert "orders restarts" in run.trace[page + 1]["narration"]["en"]


@pytest.mark.parametrize(
    ("change", "key"),
    [
        ({"change": "removeTool", "server": "orders", "name": "nope"}, "no-tool"),
        ({"change": "pageSize", "server": "billing", "value": 2}, "no-server"),
        ({"change": "addTool", "server": "orders", "tool": {"name": "read_order"}}, "name-taken"),
        (
            {"change": "addTool", "server": "orders", "tool": {"name": "search_invoices"}},
            "name-taken",
        ),
        (
            {
                "change": "toolSchema",
                "server": "orders",
                "name": "read_order",
                "inputSchema": {"type": "array"},
            },
            "schema-not-object",
        ),
        (
            {
                "change": "toolSchema",
                "server": "orders",
                "name": "read_order",
                "inputSchema": {"type": "object", "required": "x"},
            },
            "schema-invalid",
        ),
        ({"change": "ttl", "server": "orders", "ms": 1000}, "ttl-legacy"),
        ({"change": "twinServer", "name": "nothing_like_it", "server": "twin"}, "no-tool-anywhere"),
        ({"change": "twinServer", "name": "read_order", "server": "orders"}, "server-taken"),
        ({"change": "restartServer", "after": 0, "server": "orders"}, "not-started"),
        ({"change": "wait", "after": 999, "seconds": 5}, "no-step"),
        ({"change": "loseNext", "after": 17}, "nothing-in-flight"),
        (
            {"change": "removeToolNow", "after": 3, "server": "orders", "name": "search_invoices"},
            "no-tool",
        ),
    ],
)
def test_an_impossible_or_protocol_breaking_move_is_refused_in_every_language(change, key):
    with pytest.raises(WhatIfError) as refused:
        run_whatif(LIST_CHANGED.with_change(change), LIBRARY)
    error = refused.value
    assert error.key == key
    for lang in ("en", "zh", "ru"):
        assert (
            error.text[lang] and "{" not in error.text[lang] and "Traceback" not in error.text[lang]
        )
    assert "Change 1" in error.text["en"] and "第 1 处修改" in error.text["zh"]


def test_a_what_if_of_a_scenario_or_version_not_offered_is_refused():
    for whatif, key in (
        (WhatIf("no-such-lesson", "2025-11-25", "stdio"), "no-scenario"),
        (WhatIf("param-headers", "2025-11-25", "stdio"), "version-not-offered"),
    ):
        with pytest.raises(WhatIfError) as refused:
            run_whatif(whatif, LIBRARY)
        assert refused.value.key == key


def test_a_run_is_capped_in_steps_and_in_time(monkeypatch):
    flood = LIST_CHANGED.with_change({"change": "poll", "seconds": 1}).with_change(
        {"change": "cache", "value": False}
    )
    flood = flood.with_change({"change": "wait", "after": 8, "seconds": 86400})
    run = run_whatif(flood, LIBRARY)
    assert len(run.trace) == model.MAX_STEPS + 1
    assert "step cap" in run.trace[-1]["narration"]["en"]
    monkeypatch.setattr(model, "MAX_SECONDS", 0.0)
    with pytest.raises(WhatIfError) as slow:
        run_whatif(PAGINATION.with_change({"change": "cache", "value": False}), LIBRARY)
    assert slow.value.key == "too-slow"


def test_too_many_changes_are_refused():
    whatif = PAGINATION
    for _ in range(model.MAX_CHANGES):
        whatif = whatif.with_change({"change": "cache", "value": False})
    with pytest.raises(WhatIfError, match="at most 32 changes"):
        whatif.with_change({"change": "cache", "value": True})


def test_each_change_is_described_in_three_languages():
    texts = describe({"change": "wait", "after": 4, "seconds": 2})
    assert texts["en"] == "After step 5, 2 seconds pass."
    assert texts["ru"] == "После шага 5 проходит 2 секунды."
    assert (
        describe({"change": "cache", "value": False})["zh"]
        == "客户端不缓存：每次列工具都要问服务器。"
    )


@pytest.mark.parametrize(
    "changes",
    [
        [
            {"change": "pageSize", "server": "orders", "value": 1},
            {"change": "loseNext", "after": 9},
        ],
        [
            {"change": "twinServer", "name": "read_order", "server": "mirror"},
            {"change": "poll", "seconds": 10},
        ],
        [
            {"change": "protocolVersion", "value": "2026-07-28"},
            {"change": "transport", "value": "http"},
        ],
    ],
)
def test_save_as_scenario_writes_a_file_mcp_lab_validate_accepts(tmp_path, capsys, changes):
    run = run_whatif(WhatIf("list-changed-add", "2025-11-25", "stdio", tuple(changes)), LIBRARY)
    path = tmp_path / "orders-what-if.yaml"
    path.write_text(to_yaml(run, "orders-what-if"), "utf-8")
    assert main(["validate", str(path)]) == 0, capsys.readouterr().out
    data = saved_data(run, "orders-what-if")
    assert (
        data["whatIf"]["base"] == "list-changed-add"
        and decode(data["whatIf"]["link"]) == run.whatif
    )
    assert data["versions"] == [run.version] and data["transports"] == [run.transport]
    assert "expect" not in data and "misconceptions" not in data
    assert (
        data["title"]["en"].endswith("(what if)")
        and describe(changes[0])["ru"] in data["summary"]["ru"]
    )
    capsys.readouterr()
    assert main(["trace", str(path), "--format", "jsonl"]) == 0
    printed = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [s["message"] for s in printed] == [s["message"] for s in run.trace]


def test_a_what_if_made_in_python_gets_the_bounds_of_a_link():
    deep: dict = {}
    for _ in range(5000):
        deep = {"x": deep}
    bad = PAGINATION.with_change({"change": "callTool", "after": 3, "tool": "t", "arguments": deep})
    with pytest.raises(WhatIfError) as refused:
        run_whatif(bad, LIBRARY)
    assert refused.value.key == "unreadable"
    huge = PAGINATION.with_change(
        {"change": "callTool", "after": 3, "tool": "t", "arguments": {"x": "y" * 30_000}}
    )
    with pytest.raises(WhatIfError) as refused:
        run_whatif(huge, LIBRARY)
    assert refused.value.key == "too-long"
