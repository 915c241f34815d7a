"""The websocket command handler as a plain function, driven by a fake socket.

flask-sock has no test client, so `converse` takes anything with send/receive: the fake below
replays a script of incoming frames (None means "the wait ran out", as simple-websocket's
receive(timeout) does) and records what the server sent. These tests use the stand-in trace
library (tests/fakelab.py) so their steps and checkpoints are known exactly; the lesson test runs
the real pagination scenario, whose myths carry the matchers that pick a step per trace.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
from flask import Flask
from flask_babel import force_locale

from app.web.channel import Closed
from app.web.pacer import Pacer
from app.web.render import open_viewer
from app.web.session import converse
from tests import fakelab


class FakeSocket:
    def __init__(self, *incoming: Any) -> None:
        self.incoming = list(incoming)
        self.sent: list[str] = []
        self.timeouts: list[float | None] = []
        self.opened: int | None = None  # how many messages the opening sent

    @property
    def replies(self) -> list[str]:
        """What the server sent after its opening, in answer to the incoming frames."""
        return self.sent[self.opened or 0 :]

    def send(self, data: str) -> None:
        self.sent.append(data)

    def receive(self, timeout: float | None = None) -> Any:
        if self.opened is None:
            self.opened = len(self.sent)
        self.timeouts.append(timeout)
        if not self.incoming:
            raise Closed()
        return self.incoming.pop(0)


@pytest.fixture
def lab_engine() -> object:
    return fakelab


@pytest.fixture
def ctx(app: Flask) -> Iterator[Flask]:
    with app.test_request_context("/ws/scenario/pagination"):
        yield app


def cmd(name: str, **params: Any) -> str:
    return json.dumps({"command": name, **params} | {"HEADERS": {"HX-Request": "true"}})


def run(app: Flask, *incoming: Any, query: dict[str, str] | None = None, **viewer: Any):
    lab = app.extensions["lab"]
    v = open_viewer(lab.scenario("pagination"), query or {}, viewer.get("lang", "en"))
    ws = FakeSocket(*incoming)
    pacer = Pacer(1000)
    converse(ws, lab, v, pacer, limit=app.config["WS_MAX_COMMAND"])
    return ws, v, pacer


def steps_seen(ws: FakeSocket) -> list[int]:
    """The steps the replies showed (the opening's own step left out)."""
    return [
        int(m)
        for m in re.findall(r'<div id="status" hidden[^>]*data-step="(\d+)"', "".join(ws.replies))
    ]


def step_messages(ws: FakeSocket) -> list[str]:
    """The replies that carry a whole step."""
    return [m for m in ws.replies if 'id="status"' in m]


def all_answers(lab: Any, sid: str, version: str, transport: str, before: int = 10**6) -> str:
    """The `answers=` a browser that has answered every question of this trace (before step
    index `before`) sends."""
    from app.web.render import checkpoint_key

    trace = lab.trace(sid, version, transport)
    return ",".join(
        f"{checkpoint_key(trace, s['index'])}:{s['checkpoint']['answer']}"
        for s in trace
        if s.get("checkpoint") and s["index"] < before
    )


def alerts(ws: FakeSocket) -> list[str]:
    found = re.findall(r'<div id="alert"[^>]*>\s*<p>(.*?)</p>', "".join(ws.sent), re.S)
    return [html.unescape(re.sub(r"<[^>]+>", "", a)).strip() for a in found]


def test_next_and_prev_move_the_cursor_and_send_what_changed(ctx: Flask):
    ws, v, _ = run(
        ctx,
        cmd("goto", step=1),
        cmd("answer", choice=1),
        cmd("goto", step=2),
        cmd("next"),
        cmd("prev"),
    )
    assert steps_seen(ws) == [1, 2, 3, 2]
    assert v.step == 2
    moves = step_messages(ws)
    # a step forward appends its own log entry; a step back deletes the entries after it
    appended = r'hx-swap-oob="beforeend:#log">\s*<li class="frame [^"]*" id="frame-3">'
    assert re.search(appended, moves[2])
    assert '<li id="frame-3" hx-swap-oob="delete"></li>' in moves[3]
    assert all('id="panel-transport"' not in m for m in moves[1:])  # never the whole log again


def test_malformed_and_unknown_commands_get_a_visible_error_and_the_socket_stays_usable(
    ctx: Flask,
):
    ws, v, _ = run(
        ctx,
        "{not json",
        "[1, 2]",
        cmd("<script>fly</script>"),
        b"\x00\x01",
        cmd("goto", step="many"),
        cmd("goto", step=0),
    )
    said = alerts(ws)
    assert said[0] == "⚠ That command is not valid JSON."
    assert said[1] == "⚠ A command must be a JSON object."
    assert said[2] == "⚠ Unknown command: <script>fly</script>"
    assert "<script>fly" not in "".join(ws.sent)  # shown as text, never as markup
    assert said[3] == "⚠ Commands must be text frames."
    assert said[4].startswith("⚠ Bad value for goto")
    assert v.step == 0 and len(said) == 5


def test_an_oversized_frame_is_refused_with_its_size(ctx: Flask):
    big = json.dumps({"command": "next", "pad": "x" * 10_000})
    ws, v, _ = run(ctx, big, cmd("next"))
    assert alerts(ws)[0] == f"⚠ Command refused: {len(big)} bytes is over the limit of 4096."
    assert v.step == 1


def test_a_checkpoint_asks_its_question_before_the_next_step_is_revealed(ctx: Flask):
    ws, v, _ = run(
        ctx,
        cmd("goto", step=1),
        cmd("next"),
        cmd("answer", choice=0),
        cmd("next"),
        cmd("answer", choice=1),
        cmd("next"),
    )
    assert alerts(ws) == ["⚠ Answer this question first."] * 2
    wrong, right = [m for m in ws.replies if 'id="feedback"' in m]
    # a wrong choice says why and leaves the question open, without giving the answer away
    assert "Not quite." in wrong and "Not yet: more pages." in wrong
    assert checkpoint_states(wrong) == ["open"] and "Ask for the next page" in wrong
    assert "it follows nextCursor" not in wrong and 'id="btn-reveal"' in wrong
    # the verdict is said once: "Right." and the reason without its own "Right:"
    assert checkpoint_states(right) == ["answered"]
    assert "Right.</strong>\nIt follows" in right
    assert v.step == 2


def test_autoplay_steps_when_the_wait_runs_out_and_stops_at_a_question(ctx: Flask):
    ws, v, pacer = run(ctx, cmd("speed", speed=2), cmd("play"), None, None, None)
    assert v.step == 1 and not pacer.playing
    assert ws.timeouts[:3] == [None, None, 0.5]
    assert 'aria-pressed="false"' in ws.sent[-1]


def test_reset_goes_back_to_the_start_and_forgets_the_answers(ctx: Flask):
    ws, v, _ = run(
        ctx, cmd("goto", step=1), cmd("answer", choice=1), cmd("reset"), cmd("next"), cmd("next")
    )
    assert v.step == 1 and v.answered == {}
    assert alerts(ws) == ["⚠ Answer this question first."]


def test_switching_language_version_and_transport_rerenders_everything(ctx: Flask):
    ws, v, _ = run(
        ctx,
        cmd("language", lang="zh"),
        cmd("transport", transport="http"),
        cmd("version", version="2026-07-28"),
        cmd("view", view="output"),
        cmd("language", lang="xx"),
    )
    assert (v.lang, v.transport, v.version, v.view) == ("zh", "http", "2026-07-28", "output")
    joined = "".join(ws.sent)
    assert "客户端请求第一页。" in joined and "第 1 步，共" in joined
    assert "POST /mcp HTTP/1.1" in step_messages(ws)[-1]  # the log is the new trace's
    assert 'data-view="output"' in ws.sent[-2]
    assert alerts(ws)[-1].startswith("⚠ ") and "xx" in alerts(ws)[-1]


def test_a_step_is_rendered_once_and_the_same_bytes_serve_every_viewer(ctx: Flask):
    from app.web.draw import Canvas
    from app.web.pages import SHARED, env
    from app.web.render import scene
    from app.web.scene import drafts

    lab = ctx.extensions["lab"]
    first = open_viewer(lab.scenario("pagination"), {"step": "3"}, "ru")
    second = open_viewer(lab.scenario("pagination"), {"step": "3", "view": "output"}, "ru")
    seen = []
    for v in (first, second):
        s = scene(lab, v)
        found = drafts(lab, s, SHARED)
        with force_locale("ru"):
            canvas = Canvas(lab.cached, env(lab, s), "socket")
            seen.append([canvas.whole(d) for d in found.values()])
    assert all(a is b for a, b in zip(*seen, strict=True))  # one string, drawn once


def test_the_route_hands_the_socket_to_converse_with_the_query_state(app: Flask, monkeypatch):
    seen = {}
    monkeypatch.setattr(
        "app.web.socket.converse", lambda ws, lab, v, pacer, limit: seen.update(v=v, limit=limit)
    )
    from app.web.socket import scenario_socket

    with app.test_request_context("/ws/scenario/pagination?step=3&lang=ru&transport=http"):
        scenario_socket(FakeSocket(), "pagination")
    # step=3 in the URL is the third step as displayed: index 2 inside
    assert (seen["v"].step, seen["v"].lang, seen["v"].transport) == (2, "ru", "http")
    assert seen["limit"] == 4096


def lessons(ws: FakeSocket) -> list[str]:
    """Each lesson panel the socket sent, in order."""
    return re.findall(r'<details id="lesson".*?</details>', "".join(ws.sent), re.S)


def goto_steps(lesson: str) -> list[int]:
    return [int(n) for n in re.findall(r'"command": "goto", "step": (\d+)', lesson)]


@pytest.mark.parametrize("lab_engine", [None])  # the real scenario: its myths and matchers
def test_a_version_or_language_change_resends_the_lesson_with_this_traces_steps(ctx: Flask):
    from app.engine.matcher import first_match

    lab = ctx.extensions["lab"]
    v = open_viewer(lab.scenario("pagination"), {}, "en")
    matchers = [m["refutedBy"] for m in v.scenario.misconceptions]
    expected = {
        version: [first_match(lab.trace("pagination", version, "stdio"), m) for m in matchers]
        for version in (v.version, "2025-06-18")
    }
    assert expected[v.version] != expected["2025-06-18"]  # the test needs traces that differ

    ws, v, _ = run(
        ctx,
        cmd("next"),
        cmd("version", version="2025-06-18"),
        cmd("goto", step=expected["2025-06-18"][0]),
        cmd("language", lang="ru"),
    )
    sent = lessons(ws)
    assert len(sent) == 2  # stepping and goto leave the lesson alone
    assert goto_steps(sent[0]) == expected["2025-06-18"]
    assert "Myth" in sent[0] and "See step" in sent[0]
    assert goto_steps(sent[1]) == expected["2025-06-18"]
    assert "Миф" in sent[1] and "К шагу" in sent[1] and "lang=ru" in sent[1]
    assert v.step == expected["2025-06-18"][0]
    assert all('hx-swap-oob="innerHTML"' in lesson for lesson in sent)  # an open panel stays open


@pytest.mark.parametrize("lab_engine", [None])  # the real versions: 2024-11-05 is HTTP+SSE
def test_a_version_change_renames_http_in_the_menu_and_the_transport_panel(ctx: Flask):
    ws, _, _ = run(
        ctx,
        cmd("version", version="2024-11-05"),
        cmd("version", version="2025-03-26"),
        query={"transport": "http", "version": "2025-11-25"},
    )
    old, new = ws.replies[0:1], ws.replies[1:2]
    for sent, label, other in (
        (old, "HTTP+SSE", "Streamable HTTP"),
        (new, "Streamable HTTP", "HTTP+SSE"),
    ):
        joined = "".join(sent)
        assert f'<option value="http" selected>{label}</option>' in joined
        assert f'<span class="chip">{label}</span>' in joined
        assert other not in joined


def run_on(app: Flask, sid: str, *incoming: Any, query: dict[str, str]):
    """`run` on any scenario of the real library."""
    lab = app.extensions["lab"]
    v = open_viewer(lab.scenario(sid), query, "en")
    ws = FakeSocket(*incoming)
    converse(ws, lab, v, Pacer(1000), limit=app.config["WS_MAX_COMMAND"])
    return ws, v


@pytest.mark.parametrize("lab_engine", [None])
def test_switching_transport_keeps_the_student_on_the_same_event_not_the_same_index(ctx: Flask):
    """list-changed-add step 11 over HTTP 2025-11-25 is the list_changed notification; over
    stdio, step 11 is the tools/list that follows it (HTTP has one more step: GET /mcp)."""
    lab = ctx.extensions["lab"]
    http = lab.trace("list-changed-add", "2025-11-25", "http")
    stdio = lab.trace("list-changed-add", "2025-11-25", "stdio")
    notice = "notifications/tools/list_changed"
    assert http[10]["method"] == notice and stdio[10]["method"] == "tools/list"
    assert stdio[10]["kind"] == "request"
    twin = next(s["index"] for s in stdio if s["method"] == notice)

    query = {"version": "2025-11-25", "transport": "http", "step": "11"}  # as displayed
    query["answers"] = all_answers(lab, "list-changed-add", "2025-11-25", "http")
    ws, v = run_on(
        ctx,
        "list-changed-add",
        cmd("transport", transport="stdio"),
        cmd("transport", transport="http"),
        query=query,
    )
    assert steps_seen(ws) == [twin, 10]
    assert v.step == 10 and v.transport == "http"
    counters = re.findall(r'<p id="counter".*?</p>', "".join(ws.replies), re.S)
    assert notice in counters[0] and f"Step {twin + 1} of {len(stdio)}" in counters[0]


@pytest.mark.parametrize("lab_engine", [None])
def test_a_switch_finds_the_same_page_of_a_listing_and_falls_back_to_the_action(ctx: Flask):
    lab = ctx.extensions["lab"]
    http = lab.trace("pagination", "2025-11-25", "http")
    stdio = lab.trace("pagination", "2025-11-25", "stdio")

    def nth(trace, i):
        s = trace[i]
        same = [
            t
            for t in trace
            if (t["action"], t["kind"], t["method"]) == (s["action"], s["kind"], s["method"])
        ]
        return same.index(s), (s["action"], s["kind"], s["method"])

    # the third page request over HTTP is the third page request over stdio
    third = [s["index"] for s in http if s["kind"] == "request" and s["method"] == "tools/list"][2]
    # the GET /mcp stream has no stdio twin: the first stdio step of its action
    stream = next(s for s in http if s["kind"] == "transport")
    first_of_action = next(s["index"] for s in stdio if s["action"] == stream["action"])
    ws, v = run_on(
        ctx,
        "pagination",
        cmd("transport", transport="stdio"),
        cmd("transport", transport="http"),
        cmd("goto", step=stream["index"]),
        cmd("transport", transport="stdio"),
        query={
            "version": "2025-11-25",
            "transport": "http",
            "step": str(third + 1),
            "answers": all_answers(lab, "pagination", "2025-11-25", "http"),
        },
    )
    seen = steps_seen(ws)
    assert nth(stdio, seen[0]) == nth(http, third)
    assert seen[1] == third
    assert seen[3] == first_of_action and v.step == first_of_action


def checkpoint_states(message: str) -> list[str]:
    return re.findall(r'<div id="checkpoint"[^>]*data-state="([a-z]*)"', message)


def test_going_back_to_an_answered_checkpoint_shows_the_answer_not_the_question_again(
    ctx: Flask,
):
    ws, v, _ = run(
        ctx,
        cmd("goto", step=1),
        cmd("answer", choice=1),
        cmd("next"),
        cmd("prev"),
        cmd("language", lang="ru"),
        cmd("next"),
    )
    assert steps_seen(ws) == [1, 2, 1, 1, 2]
    back, russian = step_messages(ws)[2:4]
    assert checkpoint_states(back) == ["answered"]
    assert 'id="feedback"' in back and "Right." in back and 'aria-pressed="true"' in back
    assert checkpoint_states(russian) == ["answered"] and "Верно." in russian
    assert alerts(ws) == [] and v.step == 2


@pytest.mark.parametrize("lab_engine", [None])
def test_an_answered_checkpoint_stays_answered_in_another_transport_or_version(ctx: Flask):
    lab = ctx.extensions["lab"]
    http = lab.trace("list-changed-add", "2025-11-25", "http")
    asked = next(s for s in http if s["checkpoint"])
    query = {"version": "2025-11-25", "transport": "http", "step": str(asked["index"] + 1)}
    ws, v = run_on(
        ctx,
        "list-changed-add",
        cmd("answer", choice=asked["checkpoint"]["answer"]),
        cmd("transport", transport="stdio"),
        cmd("version", version="2026-07-28"),
        cmd("next"),
        query=query,
    )
    stdio_step, modern_step = step_messages(ws)[:2]
    for sent, version, transport in (
        (stdio_step, "2025-11-25", "stdio"),
        (modern_step, "2026-07-28", "stdio"),
    ):
        trace = lab.trace("list-changed-add", version, transport)
        index = int(re.search(r'id="status" hidden[^>]*data-step="(\d+)"', sent).group(1))
        assert trace[index]["checkpoint"]["question"] == asked["checkpoint"]["question"]
        assert checkpoint_states(sent) == ["answered"] and 'id="feedback"' in sent
    assert alerts(ws) == []  # next was not refused: the question is not asked again
    assert v.version == "2026-07-28" and v.step == index + 1


@pytest.mark.parametrize("lab_engine", [None])
def test_answering_sends_the_output_preview_the_open_question_hid(ctx: Flask):
    from tests.test_web_pages import next_tools_question, shown

    asked, _ = next_tools_question(ctx)
    tools = [t["name"] for t in asked["state"]["model"]["next"]]
    query = {"version": "2025-11-25", "transport": "stdio", "step": str(asked["index"] + 1)}
    query["answers"] = all_answers(
        ctx.extensions["lab"], "list-changed-add", "2025-11-25", "stdio", before=asked["index"]
    )
    ws, _ = run_on(
        ctx,
        "list-changed-add",
        cmd("answer", choice=asked["checkpoint"]["answer"]),
        cmd("language", lang="zh"),
        query=query,
    )
    answer = ws.replies[0]
    assert checkpoint_states(answer) == ["answered"]
    preview = answer.split('<div id="out-next">')[1]  # the Output view's parts that changed
    assert f"next request ({len(tools)})" in shown(preview)
    assert "Answer the question" not in shown(preview)
    assert all(name in shown(preview) for name in tools)
    chinese = step_messages(ws)[0].split('<div id="out-next">')[1].split('id="out-context"')[0]
    assert f"（{len(tools)} 个）" in chinese and all(name in chinese for name in tools)


def test_play_at_an_open_question_is_refused_and_nothing_moves(ctx: Flask):
    ws, v, pacer = run(ctx, cmd("goto", step=1), cmd("play"), None, cmd("answer", choice=1))
    assert alerts(ws) == ["⚠ Answer this question first."]
    assert not pacer.playing and v.step == 1
    assert ws.timeouts == [None, None, None, None, None]  # never waited for an autoplay beat


@pytest.mark.parametrize("lab_engine", [None])  # handshake asks its first question at step 1
def test_a_deep_link_to_the_end_stops_at_the_opening_question_unless_it_was_answered(ctx: Flask):
    lab = ctx.extensions["lab"]
    trace = lab.trace("handshake", "2026-07-28", "stdio")
    assert trace[0]["checkpoint"]
    query = {"version": "2026-07-28", "transport": "stdio", "step": str(len(trace))}
    ws, v = run_on(ctx, "handshake", cmd("end"), query=query)
    assert v.step == 0 and alerts(ws) == ["⚠ Answer this question first."] * 2

    # the browser names the answers it remembers: the same link opens at the end, and play
    # from there starts over (the questions stay answered, so it plays on)
    query["answers"] = all_answers(lab, "handshake", "2026-07-28", "stdio")
    ws, v = run_on(ctx, "handshake", cmd("play"), query=query)
    assert f'data-step="{len(trace) - 1}"' in ws.sent[0] and alerts(ws) == []
    assert steps_seen(ws) == [0] and 'aria-pressed="true"' in ws.sent[-1]


def test_goto_and_end_stop_at_the_first_open_question_on_the_way_and_going_back_is_free(
    ctx: Flask,
):
    ws, v, _ = run(
        ctx,
        cmd("end"),
        cmd("goto", step=6),
        cmd("goto", step=0),
    )
    assert steps_seen(ws) == [1, 0]
    assert alerts(ws) == ["⚠ Answer this question first.", "⚠ Answer this question first."]
    assert v.step == 0


def test_a_wrong_answer_can_be_retried_and_show_the_answer_closes_the_question(ctx: Flask):
    ws, v, _ = run(
        ctx,
        cmd("goto", step=1),
        cmd("answer", choice=0),
        cmd("answer", choice=0),
        cmd("reveal"),
        cmd("answer", choice=0),
        cmd("next"),
    )
    states = [checkpoint_states(m) for m in ws.replies if 'id="checkpoint"' in m]
    assert states[1:] == [["open"], ["open"], ["answered"], ["answered"], [""]]
    shown_answer = next(m for m in ws.replies if 'data-state="answered"' in m)
    assert 'data-chosen="1"' in shown_answer and "choice right" in shown_answer
    assert v.step == 2 and alerts(ws) == []


def test_the_socket_learns_remembered_answers_from_its_url_and_ignores_bad_ones(ctx: Flask):
    lab = ctx.extensions["lab"]
    good = all_answers(lab, "pagination", "2026-07-28", "stdio")
    key = good.split(":")[0]
    for answers, expected in (
        (good, 3),  # answered: the deep link goes where it asked
        (f"{key}:0", 1),  # a wrong remembered choice does not answer it
        (f"{key}:99,<b>:1,{key}", 1),  # nor nonsense
        (f"ffffffffffff-0:1,{good}", 3),  # an unknown key costs nothing
    ):
        _, v, _ = run(ctx, query={"step": "4", "answers": answers})
        assert v.step == expected, answers


def test_the_timeline_names_only_the_steps_up_to_the_first_open_question(ctx: Flask):
    page = ctx.test_client().get("/scenario/pagination").get_data(as_text=True)
    timeline = re.search(r'<nav id="timeline".*?</nav>', page, re.S).group()
    assert 'id="mark-1" class="mark k-response has-q' in timeline
    assert (
        'id="mark-2" class="mark unknown"' in timeline
        and "tools/list" not in timeline.split('id="mark-2"')[1]
    )
    ws, _, _ = run(ctx, cmd("goto", step=1), cmd("answer", choice=1))
    # answering names the next steps: their marks, and only theirs, are sent again
    assert 'id="mark-2" class="mark k-request' in ws.replies[-1]
    assert 'id="mark-1"' not in ws.replies[-1] and 'id="timeline"' not in ws.replies[-1]


def test_every_command_has_a_handler_in_the_table():
    from app.web.session import COMMANDS

    assert set(COMMANDS) >= {"next", "prev", "goto", "end", "play", "pause", "speed", "reset"}
    assert set(COMMANDS) >= {"version", "transport", "language", "view", "answer", "reveal"}
    assert all(callable(handler) for handler in COMMANDS.values())


def test_a_socket_that_resumes_after_a_drop_gets_every_region_and_a_first_one_only_changes(
    ctx: Flask,
):
    """A first socket knows what GET drew (the same URL, without the answers the browser
    keeps) and sends only what differs; one that resumes (`resume=1`, viewer.js after a drop)
    cannot know what the page kept, and sends every region."""
    first, _, _ = run(ctx, query={"step": "1"})
    opened = "".join(first.sent)
    assert 'id="panel-overview"' not in opened  # the page already shows step 1
    # nor are the tabs and the player swapped under a keyboard user's focus: only the alert
    # (filled in place) says the socket serves
    assert 'id="tabs"' not in opened and 'id="player"' not in opened
    assert 'id="alert"' in opened
    resumed, _, _ = run(ctx, query={"step": "1", "resume": "1"})
    sent = "".join(resumed.sent)
    for region in ("status", "timeline", "panel-overview", "panel-transport", "lesson", "tabs"):
        assert f'id="{region}"' in sent, region


def test_a_page_that_says_its_overview_picture_gets_its_parts_and_the_overview_on_a_switch(ctx):
    ws, v, _ = run(
        ctx, cmd("next"), cmd("shape", shape="tall"), cmd("prev"), query={"shape": "wide"}
    )
    stepped, switched, back = ws.replies
    assert 'id="ov-w-m"' in stepped and 'id="ov-t-' not in stepped
    assert 'id="panel-overview"' in switched  # the picture it had not kept current, whole
    assert 'id="ov-t-m"' in back and 'id="ov-w-' not in back
    assert v.shape == "tall"
    refused, unmoved, _ = run(ctx, cmd("shape", shape="round"))
    assert alerts(refused) and unmoved.shape == ""
