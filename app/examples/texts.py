"""The examples' own texts (texts.yaml) in the lab's languages: the comments of the scripts
`mcp-lab example` prints and the captions of the Code view. Kept beside the code that uses them,
like the engine's phrases.yaml, and filled the same way ({placeholders}, complete sentences)."""

from __future__ import annotations

from functools import cache
from importlib import resources
from typing import Any

import yaml

from app.engine.step import LANGUAGES, Text


@cache
def _table() -> dict[str, dict[str, str]]:
    raw = resources.files("app.examples").joinpath("texts.yaml").read_text("utf-8")
    data: dict[str, dict[str, str]] = yaml.safe_load(raw)
    return data


def entries() -> dict[str, dict[str, str]]:
    """Every text as written, by key and language."""
    return _table()


def say(key: str, lang: str, **params: Any) -> str:
    """One text in one language (English when the language has none)."""
    entry = _table()[key]
    return (entry.get(lang) or entry["en"]).format(**params)


def text(key: str, **params: Any) -> Text:
    """One text in every language."""
    by_lang = {lang: say(key, lang, **params) for lang in LANGUAGES}
    return {"en": by_lang["en"], "zh": by_lang["zh"], "ru": by_lang["ru"]}
