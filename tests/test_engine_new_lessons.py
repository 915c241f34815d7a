"""The lessons of issue 19 (resources-prompts, auth-scoped-tools, tool-search,
server-instructions, servers-in-the-wild): in the library, in course order, and showing what a
student is told they show. Their promises (checkpoints, expectations, myths, schema validity in
every version they support) are checked for every scenario by test_engine_scenarios."""

from __future__ import annotations

import pytest

from app.engine.library import default_scenarios_dir, load_library
from app.engine.runner import run_trace
from app.mcp import framing

LIBRARY = load_library(default_scenarios_dir())
NEW = [
    "resources-prompts",
    "auth-scoped-tools",
    "tool-search",
    "server-instructions",
    "servers-in-the-wild",
]


@pytest.mark.parametrize("sid", NEW)
def test_the_lesson_is_in_the_library_with_questions_and_myths(sid):
    scenario = LIBRARY.scenarios[sid]
    assert len(scenario.misconceptions) >= 2
    assert sum(1 for a in scenario.data["script"] if "checkpoint" in a) >= 2


def test_the_course_places_each_lesson_after_what_it_builds_on():
    course = list(LIBRARY.scenarios)
    before = [
        ("handshake", "server-instructions"),
        ("server-instructions", "pagination"),
        ("access-control", "auth-scoped-tools"),
        ("pagination", "resources-prompts"),
        ("list-changed-add", "resources-prompts"),
        ("tool-metadata", "servers-in-the-wild"),
        ("collisions", "tool-search"),
    ]
    for first, then in before:
        assert course.index(first) < course.index(then), (first, then)


@pytest.mark.parametrize("version", ["2025-11-25", "2026-07-28"])
def test_a_refused_request_is_sent_again_with_the_same_id_and_a_bearer_token(version):
    trace = run_trace(LIBRARY.scenarios["auth-scoped-tools"], version, "http")
    refused = [
        s for s in trace if s["kind"] == "request" and (s["reply"] or "").startswith("HTTP/1.1 4")
    ]
    assert [s["reply"].split("\r\n")[0] for s in refused] == [
        "HTTP/1.1 401 Unauthorized",
        "HTTP/1.1 403 Forbidden",
    ]
    for step in refused:
        again = next(s for s in trace[step["index"] + 1 :] if s["kind"] == "request")
        assert again["id"] == step["id"] and again["method"] == step["method"]
        _, headers, _ = framing.parse_http_request(again["frame"])
        assert headers["authorization"].startswith("Bearer at_")
        # the refused request never reached the server: its state did not move
        before = trace[step["index"] - 1]["state"]["servers"]["orders"]
        assert step["state"]["servers"]["orders"] == before


@pytest.mark.parametrize("version", ["2025-11-25", "2026-07-28"])
def test_tool_search_sends_nothing_to_any_server_after_the_lists(version):
    trace = run_trace(LIBRARY.scenarios["tool-search"], version, "stdio")
    first_model = next(s["index"] for s in trace if s["kind"] == "model-request")
    on_wire = [s["method"] for s in trace[first_model:] if s["message"] is not None]
    assert on_wire == ["tools/call", "tools/call"]  # only the one call the agent may make
    searches = [s for s in trace if s["from"] == "model" and s["kind"] == "internal"]
    assert [s["state"]["model"]["search"]["query"] for s in searches] == ["refund invoice"] * 2
    handed = [len(s["state"]["model"]["tools"]) for s in trace if s["kind"] == "model-request"]
    assert handed[0] == 214 and max(handed[1:]) < 10


def test_instructions_reach_the_system_prompt_only_while_the_host_places_them():
    trace = run_trace(LIBRARY.scenarios["server-instructions"], "2024-11-05", "stdio")
    requests = [s["state"]["model"] for s in trace if s["kind"] == "model-request"]
    assert [len(m.get("instructions", [])) for m in requests] == [1, 0]


def test_an_unsubscribed_resource_change_sends_nothing_and_a_subscribed_one_is_read_again():
    trace = run_trace(LIBRARY.scenarios["resources-prompts"], "2026-07-28", "http")
    updated = [s for s in trace if s["method"] == "notifications/resources/updated"]
    assert [s["message"]["params"]["uri"] for s in updated] == ["file:///handbook/faq.md"]
    reads = [
        s["message"]["params"]["uri"]
        for s in trace
        if s["kind"] == "request" and s["method"] == "resources/read"
    ]
    assert reads == ["file:///handbook/faq.md", "file:///handbook/faq.md"]
