"""Narration says what the message says, in every language.

The oracle for a page's narration is the message itself (nextCursor or not, which page of which
gather, which tools) and the phrase table, not the code that picks the phrase, so swapping the
"more pages" and "last page" narrations fails here. No zh or ru phrase fills a placeholder its
English lacks, so a translation moved to another phrase is caught too (and the goldens show
every language in full for the rest).
"""

from __future__ import annotations

import re
import string

import pytest

from app.engine import narration
from app.engine.library import default_scenarios_dir, load_library
from app.engine.runner import run_trace
from app.engine.step import LANGUAGES, in_language

LIBRARY = load_library(default_scenarios_dir())


def page_steps(trace):
    for step in trace:
        page = next((e for e in step["events"] if e["kind"] == "page"), None)
        if step["method"] == "tools/list" and step["kind"] == "response" and page:
            yield step, page


@pytest.mark.parametrize("version", ["2024-11-05", "2025-11-25", "2026-07-28"])
def test_each_page_is_narrated_as_more_to_come_or_the_last_by_its_own_next_cursor(version):
    trace = run_trace(LIBRARY.scenarios["pagination"], version, "stdio")
    seen = set()
    for step, page in page_steps(trace):
        more = "nextCursor" in step["message"]["result"]
        key = (
            "res.page-more" if more else ("res.page-only" if page["page"] == 1 else "res.page-last")
        )
        seen.add(key)
        params = {
            "server": step["from"].split(":", 1)[1],
            "method": "tools/list",
            "version": step["protocolVersion"],
            "generation": page["generation"],
            "page": page["page"],
            "count": len(page["names"]),
            "names": page["names"],
        }
        expected = narration.text(key, params)
        for lang in LANGUAGES:
            said = in_language(step["narration"], lang)
            assert said.startswith(in_language(expected, lang)), (step["index"], lang, said)
    assert "res.page-more" in seen and seen & {"res.page-last", "res.page-only"}


def placeholders(template: object) -> set[str]:
    texts = template.values() if isinstance(template, dict) else [template]
    found = set()
    for text in texts:
        for _, name, _, _ in string.Formatter().parse(str(text)):
            if name:
                found.add(re.split(r"[.:\[]", name)[0])
    return found


@pytest.mark.parametrize("key", sorted(narration.phrases()))
def test_no_translation_fills_a_placeholder_its_english_does_not_have(key):
    entry = narration.phrases()[key]
    if not isinstance(entry, dict) or "en" not in entry:
        return
    english = placeholders(entry["en"])
    for lang in ("zh", "ru"):
        if lang in entry:
            # a translation may leave a detail out (an English-only message), never add one
            assert placeholders(entry[lang]) <= english, (key, lang)
