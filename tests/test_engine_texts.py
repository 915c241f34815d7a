"""What students read is written as a person writes it, in all three languages: real plural
forms, no placeholder dashes for empty lists, and no two different steps with the same narration
(the pages of a second gather say which gather and page they are)."""

from __future__ import annotations

import json
import re
from functools import cache
from typing import Any

import pytest

from app.engine import narration
from app.engine.library import default_scenarios_dir, load_library
from app.engine.runner import run_trace

LIBRARY = load_library(default_scenarios_dir())
RUNS = [
    (sid, version, transport)
    for sid, scenario in LIBRARY.scenarios.items()
    for version in scenario.versions
    for transport in scenario.transports
]
# "2 tool(s)", "инструмент(ы)", "removed: —", "changed: —;", an empty "()" where names were.
MACHINE_TEXT = re.compile(r"\w\((s|es|ы|и|а|ов)\)|:\s*—|—\s*[;)]|\(\s*\)|（\s*）")


@cache
def trace_of(sid: str, version: str, transport: str) -> list[dict[str, Any]]:
    return run_trace(LIBRARY.scenarios[sid], version, transport)


def _same_event(a: dict[str, Any], b: dict[str, Any]) -> bool:
    def key(s: dict[str, Any]) -> str:
        fields = (s["kind"], s["from"], s["to"], s["method"], s["message"], s["events"])
        return json.dumps([*fields, s["state"]["clockMs"]], sort_keys=True)

    return key(a) == key(b)


@pytest.mark.parametrize(("sid", "version", "transport"), RUNS)
def test_narration_and_console_read_as_sentences_in_every_language(sid, version, transport):
    for step in trace_of(sid, version, transport):
        for lang in narration.LANGUAGES:
            text = step["narration"][lang]
            assert not MACHINE_TEXT.search(text), (step["index"], lang, text)
            cp = step["checkpoint"]
            if cp:
                for part in [
                    cp["question"],
                    *(c[k] for c in cp["choices"] for k in ("text", "why")),
                ]:
                    assert not MACHINE_TEXT.search(part[lang]), (step["index"], lang, part[lang])
        for line in step["state"]["console"]:
            assert set(line) == set(narration.LANGUAGES), line
            for lang in narration.LANGUAGES:
                assert not MACHINE_TEXT.search(line[lang]), line[lang]


@pytest.mark.parametrize(("sid", "version", "transport"), RUNS)
def test_no_two_different_steps_share_a_narration(sid, version, transport):
    for lang in narration.LANGUAGES:
        first: dict[str, dict[str, Any]] = {}
        for step in trace_of(sid, version, transport):
            text = step["narration"][lang]
            earlier = first.setdefault(text, step)
            assert earlier is step or _same_event(earlier, step), (
                f"steps {earlier['index']} and {step['index']} ({lang}) read the same: {text}"
            )


def test_the_checks_catch_a_machine_plural_and_a_repeat():
    assert MACHINE_TEXT.search("Page 2 arrives with 2 tool(s)")
    assert MACHINE_TEXT.search("(added: a; removed: —; changed: —)")
    assert MACHINE_TEXT.search("инструмент(ов)")
    assert not MACHINE_TEXT.search("2 tools (read_order and list_orders)")
    step = trace_of("pagination", "2025-11-25", "stdio")
    pages = [s for s in step if s["kind"] == "response" and s["method"] == "tools/list"]
    assert not _same_event(pages[0], pages[1])


@pytest.mark.parametrize(
    ("lang", "n", "category"),
    [
        ("en", 1, "one"),
        ("en", 0, "other"),
        ("en", 2, "other"),
        ("ru", 1, "one"),
        ("ru", 21, "one"),
        ("ru", 2, "few"),
        ("ru", 24, "few"),
        ("ru", 5, "many"),
        ("ru", 11, "many"),
        ("ru", 12, "many"),
        ("ru", 0, "many"),
        ("ru", 1.5, "few"),
        ("zh", 1, "other"),
    ],
)
def test_plural_categories_follow_each_language(lang, n, category):
    assert narration.plural_category(lang, n) == category


def test_counts_take_the_noun_in_its_plural_form():
    one = narration.text("terminal.end", {"tools": 1})
    two = narration.text("terminal.end", {"tools": 2})
    five = narration.text("terminal.end", {"tools": 5})
    none = narration.text("terminal.end", {"tools": 0})
    assert "1 tool." in one["en"] and "2 tools." in two["en"]
    assert "1 инструмент." in one["ru"]
    assert "2 инструмента." in two["ru"]
    assert "5 инструментов." in five["ru"]
    assert "2 个工具" in two["zh"]
    assert "no tools" in none["en"] and "0" not in none["ru"]


def test_changes_name_only_what_changed_with_agreement():
    text = narration.text(
        "server.change", {"server": "orders", "added": ["a"], "removed": ["b", "c"], "changed": []}
    )
    assert "a is new and b and c are gone" in text["en"]
    assert "появился a и пропали b и c" in text["ru"]
    assert "新增了 a，b 和 c 被移除" in text["zh"]


def _forms_complete(text: Any, lang: str) -> bool:
    if isinstance(text, str):
        return bool(text.strip())
    needed = {"en": {"other"}, "ru": {"one", "few", "many"}, "zh": {"other"}}[lang]
    return needed <= set(text) or (lang == "ru" and {"other"} <= set(text))


def test_every_phrase_and_noun_exists_in_every_language_with_its_plural_forms():
    table = narration.phrases()
    for key, entry in table.items():
        if key == "nouns":
            for noun, forms in entry.items():
                assert isinstance(forms["zh"], str), noun
                assert {"one", "other"} <= set(forms["en"]), noun
                assert {"one", "few", "many"} <= set(forms["ru"]), noun
            continue
        for lang in narration.LANGUAGES:
            assert lang in entry and _forms_complete(entry[lang], lang), (key, lang)
