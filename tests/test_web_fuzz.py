"""Property-based tests (hypothesis): random input never breaks the command handler or a file.

Frames: text, binary, huge, deeply nested, wrong types, any unicode, commands with random
values. Each goes through `session.handle`, the function the socket loop calls, on a real
scenario: it must answer with fragments (an alert for a bad frame, in the viewer's language),
never raise and never take the "the server could not carry out that command" path that logs a
traceback; and a valid command still works afterwards. Scenario files: every shipped file,
mutated (lines dropped, doubled, swapped, values replaced, bytes inserted), is either valid or
rejected with `file:line:` errors by `validate`, the function the CLI and the web share, and
never raises. Example counts are small so the whole module stays within a few seconds.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.engine.library import validate
from app.web.pacer import Pacer
from app.web.render import open_viewer
from app.web.session import COMMANDS, handle

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = sorted((ROOT / "scenarios").glob("*.yaml"))
FAST = settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[
        HealthCheck.function_scoped_fixture,
        HealthCheck.too_slow,
        HealthCheck.data_too_large,  # bursts of up to 8 frames of 6,000 characters, on purpose
    ],
)

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=40),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
commands = st.builds(
    lambda name, params: json.dumps({"command": name, **params}, allow_nan=True),
    st.sampled_from([*COMMANDS, "", "NEXT", "__class__", "eval", "<script>"]),
    st.dictionaries(
        st.sampled_from(["step", "choice", "speed", "view", "version", "transport", "lang", "x"]),
        json_values,
        max_size=3,
    ),
)
nested = st.builds(
    lambda depth, open_, close: open_ * depth + "1" + close * depth,
    st.integers(min_value=1, max_value=5000),
    st.sampled_from(["[", '{"a":', '{"command":"goto","step":[']),
    st.sampled_from(["]", "}", ""]),
)
frames = st.one_of(
    commands,
    nested,
    st.text(max_size=200),
    st.binary(max_size=200),
    # an oversized frame: its size is the point, not its characters, so it is built from one
    # character and a length (random text this long trips hypothesis' data_too_large check);
    # a character UTF-8 can encode, as text frames carry (lone surrogates are broken-bytes cases)
    st.builds(
        lambda c, n: c * n,
        st.characters(codec="utf-8"),
        st.integers(min_value=4097, max_value=6000),
    ),
    st.builds(lambda v: json.dumps(v, allow_nan=True), json_values),
)


@pytest.fixture
def ctx(app: Flask) -> Iterator[Flask]:
    with app.test_request_context("/ws/scenario/pagination"):
        yield app


def viewer(app: Flask, lang: str = "en") -> Any:
    lab = app.extensions["lab"]
    return lab, open_viewer(lab.scenario("pagination"), {}, lang)


@FAST
@given(burst=st.lists(frames, min_size=1, max_size=8), lang=st.sampled_from(["en", "zh", "ru"]))
def test_any_frame_gets_fragments_back_and_a_valid_command_still_works(ctx, caplog, burst, lang):
    lab, v = viewer(ctx, lang)
    pacer = Pacer(1000)
    caplog.clear()
    with caplog.at_level(logging.ERROR):
        for raw in burst:
            sent = handle(lab, v, pacer, raw, ctx.config["WS_MAX_COMMAND"])
            # what changed, if anything did (a pause while paused changes nothing)
            assert all(isinstance(fragment, str) and fragment for fragment in sent)
            assert 0 <= v.step < len(lab.trace(v.sid, v.version, v.transport))
        handle(lab, v, pacer, json.dumps({"command": "reset"}), 4096)
        after = handle(lab, v, pacer, json.dumps({"command": "next"}), 4096)
        assert 'data-step="1"' in "".join(after)
    assert [r.getMessage() for r in caplog.records] == []


def test_a_bad_frame_is_answered_with_a_readable_alert(ctx):
    lab, v = viewer(ctx, "ru")
    for raw in (b"\x00\xff", "[" * 3000, "nope", "[]", json.dumps({"command": "goto", "step": {}})):
        sent = "".join(handle(lab, v, Pacer(1000), raw, 4096))
        alert = re.search(r'<div id="alert"[^>]*>\s*<p>(.*?)</p>', sent, re.S)
        assert alert is not None and re.search("[а-яА-Я]", alert.group(1)), raw[:20]


def mutations(text: str) -> st.SearchStrategy[str]:
    lines = text.splitlines(keepends=True)
    n = len(lines)
    index = st.integers(min_value=0, max_value=n - 1)
    junk = st.sampled_from(
        ["", "~", "[", "{", ": :", "- ", "\t", "!!python/object:os.system", "&a *a", "<script>"]
    ) | st.text(max_size=12)

    def drop(i: int) -> str:
        return "".join(lines[:i] + lines[i + 1 :])

    def double(i: int) -> str:
        return "".join(lines[: i + 1] + lines[i:])

    def swap(i: int, j: int) -> str:
        copy = list(lines)
        copy[i], copy[j] = copy[j], copy[i]
        return "".join(copy)

    def replace_value(i: int, value: str) -> str:
        copy = list(lines)
        key, sep, _ = copy[i].partition(": ")
        copy[i] = f"{key}{sep or ': '}{value}\n"
        return "".join(copy)

    def insert(at: int, chars: str) -> str:
        return text[:at] + chars + text[at:]

    return st.one_of(
        st.builds(drop, index),
        st.builds(double, index),
        st.builds(swap, index, index),
        st.builds(replace_value, index, junk | st.integers().map(str)),
        st.builds(insert, st.integers(min_value=0, max_value=len(text)), junk),
        st.builds(lambda k: text[:k], st.integers(min_value=0, max_value=len(text))),
    )


@pytest.mark.parametrize("source", SCENARIOS, ids=lambda p: p.stem)
def test_a_mutated_scenario_file_is_valid_or_rejected_with_file_and_line(source, tmp_path):
    original = source.read_text("utf-8")
    target = tmp_path / source.name

    @settings(max_examples=4, deadline=None, database=None)
    @given(text=mutations(original))
    def check(text: str) -> None:
        target.write_text(text, "utf-8")
        scenario, errors = validate(target)
        if scenario is None:
            assert errors
            for error in errors:
                assert re.match(rf"{re.escape(source.name)}:\d+: \S", str(error)), str(error)
        else:
            assert errors == []

    check()
