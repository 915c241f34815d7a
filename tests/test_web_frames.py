"""The region renderer: deltas decided from keys, markup drawn once, frames small, nothing
validated on the way out (issue 16).

The step frame a following student gets is measured over every step of every shipped scenario
(each version and transport) by app.web.classroom.sizes, the function bench/fanout.py prints
from; sizes are deterministic, so the goal is held here.
"""

from __future__ import annotations

import itertools
import re

import pytest
from flask import Flask
from flask_babel import force_locale

from app.web.classroom import sizes
from app.web.classroom.render import ROOM, Cursor, change, scene
from app.web.draw import Canvas
from app.web.pages import SHARED, env
from app.web.regions import Part, Region, diff
from app.web.scene import Scene, drafts


def test_a_followers_step_frame_is_small_at_the_median_and_bounded_at_most(app: Flask):
    with app.test_request_context("/"):
        frames = sizes.step_frames(app.extensions["lab"])
    figures = sizes.figures_of(frames)
    steps = {(f.sid, f.version, f.transport, f.step) for f in frames}
    assert len(steps) > 4000  # every step of every shipped trace
    assert {f.shape for f in frames} == {"wide", "tall"}  # as a desk and as a phone get it
    biggest = max(frames, key=lambda f: f.size)
    assert figures["frame_max_kib"] <= sizes.GOAL_MAX_KIB, biggest
    # Over the goal? A part of a view seldom in sight (behind a tab on a phone, below the others
    # on a desk) can travel as a placeholder loaded when shown: Sketch.part(..., lazy=0).
    assert figures["frame_p50_kib"] <= sizes.GOAL_P50_KIB, figures


def test_equal_keys_draw_equal_markup_across_steps_and_traces(app: Flask):
    """The rule every delta rests on: a part's key is its inputs, so two scenes whose part has
    the same key draw the same markup (else a page would keep a stale part)."""
    lab = app.extensions["lab"]
    drawn: dict[object, str] = {}
    with app.test_request_context("/"), force_locale("en"):
        for version, transport in (("2025-06-18", "stdio"), ("2026-07-28", "http")):
            trace = lab.trace("pagination", version, transport)
            for step in range(len(trace)):
                s = Scene("pagination", version, transport, "en", step, step)
                canvas = Canvas(lambda key, make: make(), env(lab, s), "socket")
                for draft in drafts(lab, s, SHARED).values():
                    for part in draft.region.parts:
                        html = canvas.part(draft, part.id)
                        key = canvas.markup_key(draft, part)  # with its children's keys
                        assert drawn.setdefault(key, html) == html, part.id


def test_a_step_sends_the_new_entry_and_the_moved_stage_parts_never_a_whole_panel(app: Flask):
    lab = app.extensions["lab"]
    trace = lab.trace("pagination", "2025-11-25", "http")
    with app.test_request_context("/"):
        for step in range(1, len(trace)):
            before = Cursor("pagination", "2025-11-25", "http", step - 1, "en")
            after = Cursor("pagination", "2025-11-25", "http", step, "en")
            message = change(lab, (before, 0), (after, 0))
            assert 'id="panel-overview"' not in message and 'id="timeline"' not in message
            assert f'data-step="{step}"' in message
            if not any(s["frame"] for s in trace[:step]):
                continue  # the first message on the wire turns "nothing yet" into the log
            assert 'id="panel-transport"' not in message
            if trace[step]["frame"] is not None:  # it crossed the wire: its entry is appended
                entry = rf'beforeend:#log">\s*<li class="frame[^"]*" id="frame-{step}"'
                assert re.search(entry, message)


def tight(html: str) -> str:
    """Markup without the line breaks between elements (a part's own or its neighbour's)."""
    return re.sub(r">\s+<", "><", html).strip()


def test_a_page_that_displays_one_picture_gets_only_that_pictures_moving_parts(app: Flask):
    """CSS displays the wide or the tall overview by the screen's size; a page that said which
    gets the parts of that one, and everything else a page that did not say gets."""
    lab = app.extensions["lab"]
    trace = lab.trace("pagination", "2025-11-25", "http")
    moved = {"wide": 0, "tall": 0}
    with app.test_request_context("/"):
        for step in range(1, len(trace)):
            before = Cursor("pagination", "2025-11-25", "http", step - 1, "en")
            after = Cursor("pagination", "2025-11-25", "http", step, "en")
            both = change(lab, (before, 0), (after, 0))
            for shape, other in (("wide", "tall"), ("tall", "wide")):
                one = change(lab, (before, 0), (after, 0), shape=shape)
                assert f'id="ov-{other[0]}-' not in one
                kept = re.sub(rf'<svg id="ov-{other[0]}-[^"]*".*?</svg>', "", both, flags=re.S)
                assert tight(one) == tight(kept)
                moved[shape] += f'id="ov-{shape[0]}-m"' in one
    assert moved["wide"] > 5 and moved["tall"] > 5


def test_a_step_back_deletes_the_later_entries_and_a_switch_redraws_the_log():
    def region(*items: str, key: str = "k") -> Region:
        return Region("panel-transport", key, tuple(Part(i, i, item=True) for i in items))

    back = diff({"panel-transport": region("a", "b", "c")}, {"panel-transport": region("a")})
    assert [(op.kind, op.parts) for op in back] == [("delete", ("b",)), ("delete", ("c",))]
    ahead = diff({"panel-transport": region("a")}, {"panel-transport": region("a", "b")})
    assert [(op.kind, op.parts) for op in ahead] == [("append", ("b",))]
    other = diff({"panel-transport": region("a", "b")}, {"panel-transport": region("b", "a")})
    assert [op.kind for op in other] == ["whole"]
    switched = diff({"panel-transport": region("a")}, {"panel-transport": region("a", key="j")})
    assert [op.kind for op in switched] == ["whole"]


def test_rendering_and_sending_never_validate_a_message(app: Flask, client, monkeypatch):
    """The schema badge is computed once, when a trace is built; drawing a page, a viewer's
    messages and a room's never run the JSON-schema check again."""
    lab = app.extensions["lab"]
    for version, transport in itertools.product(("2025-11-25", "2026-07-28"), ("stdio", "http")):
        lab.trace("pagination", version, transport)
    calls: list[object] = []
    monkeypatch.setattr("app.web.lab.check_message", lambda *a, **k: calls.append(a) or [])
    page = client.get("/scenario/pagination?step=6&version=2025-11-25&transport=http")
    assert page.status_code == 200 and "valid 2025-11-25" in page.get_data(as_text=True)
    with app.test_request_context("/"):
        for step in range(1, 8):
            before = Cursor("pagination", "2026-07-28", "stdio", step - 1, "en")
            change(lab, (before, 0), (Cursor("pagination", "2026-07-28", "stdio", step, "en"), 0))
    assert calls == []


@pytest.mark.parametrize("lang", ["en", "zh", "ru"])
def test_a_rooms_regions_are_the_viewers_own_drafts(app: Flask, lang: str):
    """A room's step and a viewer's at the same step share their regions, but for the poll in
    place of the question and the stepper's and timeline's buttons (a room's page has no
    address per step, and no End button: End must never send "end", which ends a room)."""
    lab = app.extensions["lab"]
    with app.test_request_context("/"), force_locale(lang):
        room = scene(lab, Cursor("pagination", "2025-11-25", "stdio", 2, lang))
        viewer = Scene("pagination", "2025-11-25", "stdio", lang, 2, 2)
        ours, theirs = drafts(lab, room, ROOM), drafts(lab, viewer, ROOM)
        differ = {rid for rid in ROOM if ours[rid].region != theirs[rid].region}
        assert differ == {"checkpoint", "stepper", "timeline"}
        stepper = Canvas(lab.cached, env(lab, room), "room").whole(ours["stepper"])
        assert 'id="btn-next"' in stepper and 'id="btn-end"' not in stepper
        assert "href=" not in stepper
