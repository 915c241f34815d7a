"""The one bounded JSON reader: every hostile shape is a JsonRefused naming its rule."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.bounded_json import DEPTH, JsonRefused, depth_of, read_json


def test_it_reads_ordinary_json() -> None:
    assert read_json('{"command": "goto", "step": 3}', 4096, want=dict) == {
        "command": "goto",
        "step": 3,
    }
    assert read_json(b'[1, [2, {"a": [3]}]]', 4096) == [1, [2, {"a": [3]}]]


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        ("[" * 4000, "depth"),
        ("[" * 100_000, "size"),
        ('{"a":' * 200 + "1" + "}" * 200, "depth"),
        ("x" * 5000, "size"),
        ("я" * 2100, "size"),  # 4,200 bytes in 2,100 characters
        (b"\xff\xfe\x00", "binary"),
        (12, "binary"),
        ("{not json", "syntax"),
        ("", "syntax"),
        ("[1, 2]", "type"),
    ],
)
def test_hostile_input_is_refused_with_its_rule(data: object, reason: str) -> None:
    with pytest.raises(JsonRefused) as refused:
        read_json(data, 4096, want=dict)
    assert refused.value.reason == reason


def test_a_deep_text_within_a_large_limit_is_refused_for_its_depth() -> None:
    with pytest.raises(JsonRefused) as refused:
        read_json("[" * 100_000, 8 * 1024 * 1024)
    assert refused.value.reason == "depth"


def test_brackets_inside_strings_do_not_count_as_depth() -> None:
    text = json.dumps({"text": "[" * 500 + '\\"{' * 100})
    assert depth_of(text) == 1
    assert read_json(text, 10_000, want=dict)["text"].startswith("[[[")


def test_the_depth_limit_is_inclusive() -> None:
    assert read_json("[" * DEPTH + "]" * DEPTH, 4096) is not None
    with pytest.raises(JsonRefused):
        read_json("[" * (DEPTH + 1) + "]" * (DEPTH + 1), 4096)


@given(st.text(max_size=300) | st.binary(max_size=300))
def test_any_input_is_a_value_or_a_refusal(data: str | bytes) -> None:
    try:
        read_json(data, 200, depth=8)
    except JsonRefused as refused:
        assert refused.reason in {"binary", "size", "depth", "syntax", "type"}
