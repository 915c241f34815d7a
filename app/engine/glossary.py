"""The glossary of terms a newcomer meets, in English, Chinese and Russian (glossary.yaml).

`entries()` is the data in page order; `find(text, lang)` says where each term first occurs in
a text, so the web layer can link it and list the step's terms. Patterns are per language
because concept words are translated (generation is a different word in each) while protocol
names are not (ttlMs).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

import yaml

LANGUAGES = ("en", "zh", "ru")


@dataclass(frozen=True)
class Entry:
    key: str
    term: dict[str, str]
    text: dict[str, str]
    patterns: dict[str, tuple[re.Pattern[str], ...]]

    @property
    def anchor(self) -> str:
        return f"g-{self.key}"


@cache
def entries() -> tuple[Entry, ...]:
    raw: dict[str, Any] = yaml.safe_load(
        resources.files("app.engine").joinpath("glossary.yaml").read_text("utf-8")
    )
    return tuple(
        Entry(
            key,
            dict(e["term"]),
            dict(e["text"]),
            {lang: tuple(re.compile(p) for p in e["match"].get(lang, ())) for lang in LANGUAGES},
        )
        for key, e in raw.items()
    )


def find(text: str, lang: str) -> list[tuple[int, int, Entry]]:
    """(start, end, entry) of the first occurrence of each term, in text order, not overlapping.

    A longer match wins over a shorter one at the same place (notifications/tools/list_changed
    over notification), and a term is found once per text.
    """
    hits = []
    for entry in entries():
        found = [m for p in entry.patterns.get(lang, ()) if (m := p.search(text))]
        if found:
            first = min(found, key=lambda m: (m.start(), -m.end()))
            hits.append((first.start(), first.end(), entry))
    hits.sort(key=lambda h: (h[0], -h[1]))
    out: list[tuple[int, int, Entry]] = []
    for start, end, entry in hits:
        if out and start < out[-1][1]:
            continue
        out.append((start, end, entry))
    return out


@cache
def topics() -> dict[str, dict[str, str]]:
    """Topic chip → its name in each language (topics.yaml)."""
    text = resources.files("app.engine").joinpath("topics.yaml").read_text("utf-8")
    data: dict[str, dict[str, str]] = yaml.safe_load(text)
    return data
