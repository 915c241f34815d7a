"""Wording a newcomer tripped over, checked per language in every text students read: the
scenario files, the narration phrases, the glossary and the interface catalogs."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from app.engine.library import load_library
from app.engine.runner import run_trace
from app.engine.scenario import default_scenarios_dir
from app.web.stage import TRAVELS

REPO = Path(__file__).resolve().parent.parent
SOURCES = [
    *sorted((REPO / "scenarios").glob("*.yaml")),
    REPO / "app/engine/phrases.yaml",
    REPO / "app/engine/glossary.yaml",
]
LIBRARY = load_library(default_scenarios_dir()).scenarios


def texts(lang: str) -> Iterator[tuple[str, str, str]]:
    """(file, path, text) for every text in `lang` of the sources."""

    def walk(node: Any, path: str, name: str) -> Iterator[tuple[str, str, str]]:
        if isinstance(node, dict):
            for key, value in node.items():
                if key == lang and isinstance(value, str):
                    yield name, path, value
                else:
                    yield from walk(value, f"{path}.{key}", name)
        elif isinstance(node, list):
            for i, value in enumerate(node):
                yield from walk(value, f"{path}[{i}]", name)

    for source in SOURCES:
        yield from walk(yaml.safe_load(source.read_text("utf-8")), "", source.name)


def catalog(lang: str) -> dict[str, str]:
    po = (REPO / f"app/translations/{lang}/LC_MESSAGES/messages.po").read_text("utf-8")
    return dict(re.findall(r'^msgid "(.+)"\nmsgstr "(.*)"$', po, flags=re.M))


def test_zh_calls_the_legacy_versions_legacy_not_the_old_days() -> None:
    found = [(f, p) for f, p, t in texts("zh") if "旧时代" in t]
    assert found == []
    assert any("旧版协议" in t for _, _, t in texts("zh"))


def test_zh_teach_this_live_names_the_live_classroom() -> None:
    zh = catalog("zh")
    assert zh["Teach this live"] != "用它上直播课"
    assert "直播课堂" in zh["Teach this live"] and "直播课堂" in zh["Join a live room"]


def test_ru_probing_is_not_the_word_for_polling() -> None:
    topics = yaml.safe_load((REPO / "app/engine/topics.yaml").read_text("utf-8"))
    assert catalog("ru")["probing"] != topics["polling"]["ru"]


def test_ru_choices_start_with_a_capital_letter() -> None:
    lower = [
        (f, p, t)
        for f, p, t in texts("ru")
        if re.search(r"choices\[\d+\]\.text$", p) and re.match(r"[а-яё]", t)
    ]
    assert lower == []


def test_ru_says_cursor_in_russian_outside_field_names() -> None:
    bare = [(f, p) for f, p, t in texts("ru") if re.search(r"(?<![\w./(])cursor(?![\w)])", t)]
    assert bare == []


def test_ru_new_tool_sentence_names_the_request() -> None:
    found = [(f, p) for f, p, t in texts("ru") if "поэтому в этом есть" in t]
    assert found == []


@pytest.mark.parametrize("version", LIBRARY["intro"].versions)
def test_intro_first_packet_moves_one_step_after_the_first(version: str) -> None:
    """From the library, a click opens step 1 and Next shows step 2: it must be a message."""
    for transport in LIBRARY["intro"].transports:
        steps = run_trace(LIBRARY["intro"], version, transport)
        first_message = next(s["index"] for s in steps if s["kind"] in TRAVELS)
        assert first_message == 1, (version, transport)


def test_intro_first_step_explains_the_stage_and_does_not_make_the_user_type_yet() -> None:
    first = run_trace(LIBRARY["intro"], "2025-11-25", "stdio")[0]["narration"]
    zh, ru = catalog("zh"), catalog("ru")
    for lang, labels in {
        "en": ["Host", "Agent", "Model", "Client · weather"],
        "zh": [zh["Host"], zh["Agent"], zh["Model"], f"{zh['Client']} · weather"],
        "ru": [ru["Host"], ru["Agent"], ru["Model"], f"{ru['Client']} · weather"],
    }.items():
        text = first[lang]  # type: ignore[literal-required]
        assert all(label in text for label in labels), (lang, labels)
        assert "stdio" in text and "HTTP" in text  # the wire's label, in either transport
    assert "types a question" not in first["en"]
    assert "outside this picture" in first["en"]
    assert "On the right" not in first["en"]  # on a phone the server is drawn below
