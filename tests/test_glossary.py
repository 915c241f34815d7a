"""The glossary a newcomer can reach from the text: every entry in three languages, every listed
term that the lessons use has an entry that finds it, the /glossary page has an anchor per term,
narration links its terms safely, and the library's topic chips and course order are data."""

from __future__ import annotations

import re
from functools import cache

import pytest

from app.engine import glossary
from app.engine.library import default_scenarios_dir, load_library
from app.engine.runner import run_trace
from app.web.factory import create_app
from app.web.glossary import glossed

LIBRARY = load_library(default_scenarios_dir())
LANGS = glossary.LANGUAGES
# The terms a newcomer meets, each with how it shows in an English text.
LISTED = {
    "json-rpc": r"JSON-RPC",
    "cursor": r"\bcursor\b",
    "nextcursor": r"\bnextCursor\b",
    "capability": r"\bcapabilit(y|ies)\b",
    "listchanged": r"\blistChanged\b",
    "ttlms": r"\bttlMs\b",
    "cachescope": r"\bcacheScope\b",
    "meta": r"(?<![A-Za-z0-9_])_meta\b",
    "generation": r"\bgeneration\b",
    "qualified-name": r"\bqualified names?\b",
    "model-safe-name": r"\bmodel-(safe|facing) names?\b",
    "notification": r"\bnotifications?\b(?!/)",
    "session": r"\bsession\b",
    "era": r"\bera\b",
    "transport": r"\btransports?\b",
}
# Protocol names read the same in every language, so they must be found in zh and ru texts too.
IDENTIFIERS = ("json-rpc", "nextcursor", "listchanged", "ttlms", "cachescope", "meta")


@cache
def lesson_texts() -> dict[str, list[str]]:
    """Every narration, question, explanation and myth of every run, per language."""
    texts: dict[str, list[str]] = {lang: [] for lang in LANGS}
    for scenario in LIBRARY.scenarios.values():
        for version in scenario.versions:
            for transport in scenario.transports:
                for step in run_trace(scenario, version, transport):
                    parts = [step["narration"]]
                    if step["checkpoint"]:
                        cp = step["checkpoint"]
                        parts += [cp["question"], *(c["why"] for c in cp["choices"])]
                    for lang in LANGS:
                        texts[lang] += [p[lang] for p in parts]
        for myth in scenario.data.get("misconceptions", []):
            for lang in LANGS:
                texts[lang].append(myth["truth"][lang])
    return texts


def _keys_found(text: str, lang: str) -> set[str]:
    return {entry.key for _, _, entry in glossary.find(text, lang)}


def test_every_entry_has_a_term_a_text_and_a_pattern_in_every_language():
    entries = glossary.entries()
    assert len({e.key for e in entries}) == len(entries)
    for entry in entries:
        for lang in LANGS:
            assert entry.term.get(lang, "").strip(), (entry.key, lang)
            assert len(entry.text.get(lang, "")) > 40, (entry.key, lang)
            assert entry.patterns[lang], (entry.key, lang)
            # each pattern finds the term in its own entry heading or text
            assert any(
                p.search(entry.term[lang] + " " + entry.text[lang]) for p in entry.patterns[lang]
            ), (
                entry.key,
                lang,
            )


def test_the_listed_terms_have_entries():
    keys = {e.key for e in glossary.entries()}
    assert set(LISTED) <= keys, set(LISTED) - keys


@pytest.mark.parametrize("key", list(LISTED))
def test_a_listed_term_used_in_a_lesson_is_found_where_it_appears(key):
    pattern = re.compile(LISTED[key])
    used = [t for t in lesson_texts()["en"] if pattern.search(t)]
    for text in used:
        assert key in _keys_found(text, "en") or _covered(text, pattern, "en"), (key, text)
    if key in IDENTIFIERS:
        for lang in ("zh", "ru"):
            for text in (t for t in lesson_texts()[lang] if pattern.search(t)):
                assert key in _keys_found(text, lang) or _covered(text, pattern, lang), (key, text)


def _covered(text: str, pattern: re.Pattern[str], lang: str) -> bool:
    """The term sits inside a longer linked term (list_changed inside the notification's name)."""
    first = pattern.search(text)
    assert first is not None
    return any(s <= first.start() and first.end() <= e for s, e, _ in glossary.find(text, lang))


def test_concept_terms_are_found_in_chinese_and_russian_lessons_too():
    for key in ("generation", "capability", "cursor", "session", "notification", "transport"):
        for lang in ("zh", "ru"):
            assert any(key in _keys_found(t, lang) for t in lesson_texts()[lang]), (key, lang)


def test_a_term_is_linked_once_and_the_rest_of_the_text_stays_escaped():
    app = create_app()
    with app.test_request_context():
        html = str(glossed("<b>ttlMs</b> and ttlMs again & a cursor", "en"))
    assert html.count('<a href="/glossary') == 2  # ttlMs once, cursor once
    assert "&lt;b&gt;" in html and "<b>" not in html and "&amp;" in html
    assert 'href="/glossary?lang=en#g-ttlms"' in html


def test_the_glossary_page_has_an_anchor_per_term_in_each_language():
    client = create_app().test_client()
    for lang in LANGS:
        page = client.get(f"/glossary?lang={lang}").get_data(as_text=True)
        for entry in glossary.entries():
            assert f'id="{entry.anchor}"' in page
            assert str(entry.term[lang]).split(" ")[0] in page or lang == "en"
    zh = client.get("/glossary?lang=zh").get_data(as_text=True)
    assert "术语表" in zh and "游标" in zh


def test_a_step_links_its_terms_and_lists_them_in_a_disclosure():
    client = create_app().test_client()
    html = client.get("/scenario/pagination?step=7&lang=ru").get_data(as_text=True)
    start = html.index('id="narration"')
    narration = html[start : html.index("</details>", start)]
    assert 'href="/glossary?lang=ru#g-nextcursor"' in narration
    assert '<details class="step-terms">' in narration and "Термины этого шага" in narration


def test_every_topic_chip_exists_in_three_languages_and_the_library_shows_them_translated():
    names = glossary.topics()
    for scenario in LIBRARY.scenarios.values():
        for tag in scenario.topics:
            assert tag in names, (scenario.id, tag)
            assert all(names[tag].get(lang) for lang in LANGS), tag
    zh = create_app().test_client().get("/?lang=zh").get_data(as_text=True)
    assert '<span class="chip topic">缓存</span>' in zh
    assert '<span class="chip topic">cache</span>' not in zh


def test_the_library_is_a_course_that_starts_with_the_intro():
    order = [s.order for s in LIBRARY.scenarios.values()]
    assert next(iter(LIBRARY.scenarios)) == "intro"
    assert len(set(order)) == len(order), "two scenarios share a place in the course"
    assert order == sorted(order)
    html = create_app().test_client().get("/?lang=en").get_data(as_text=True)
    cards = re.findall(r'id="card-([a-z0-9-]+)"', html)
    assert cards == list(LIBRARY.scenarios)
