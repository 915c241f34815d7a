"""Saying a phrase of phrases.yaml in English, Chinese and Russian.

A phrase is a key of phrases.yaml with a text per language and {placeholders}; `text` fills it in
every language at once. Lists are joined the way each language writes them, counts take their
plural form (`{count:tool}`, or a text that is a mapping of plural categories), booleans stay
true/false, and `{changes}` says which tools were added, removed or changed, leaving out the
empty parts. Which phrase a step says is decided elsewhere: app.engine.narration for the lab's
simulated peers, app.engine.observed for a real session an observer saw.
"""

from __future__ import annotations

import string
from functools import cache
from importlib import resources
from typing import Any

import yaml

from .step import LANGUAGES, Text, in_language

__all__ = ["join_list", "joined", "phrases", "plural_category", "text"]

_BOOL = {"en": ("true", "false"), "zh": ("true", "false"), "ru": ("true", "false")}


@cache
def phrases() -> dict[str, Any]:
    text = resources.files("app.engine").joinpath("phrases.yaml").read_text("utf-8")
    data: dict[str, Any] = yaml.safe_load(text)
    return data


def plural_category(lang: str, n: float) -> str:
    """The CLDR plural category of n: English one/other, Russian one/few/many, Chinese other."""
    if lang == "zh":
        return "other"
    if n != int(n):
        return "other" if lang == "en" else "few"  # a Russian fraction takes the "few" form
    n = abs(int(n))
    if lang == "en":
        return "one" if n == 1 else "other"
    if n % 10 == 1 and n % 100 != 11:
        return "one"
    if n % 10 in (2, 3, 4) and n % 100 not in (12, 13, 14):
        return "few"
    return "many"


def _number(value: Any, lang: str) -> str:
    text = str(value)
    return text.replace(".", ",") if lang == "ru" else text


class _Formatter(string.Formatter):
    """`{count:tool}` writes the number with its noun in the right plural form ("1 tool",
    "2 tools", and Russian's few and many forms), from the `nouns` table of phrases.yaml."""

    def __init__(self, lang: str):
        self.lang = lang

    def format_field(self, value: Any, format_spec: str) -> str:
        if not format_spec:
            return str(value)
        forms = phrases()["nouns"][format_spec][self.lang]
        number = float(str(value).replace(",", "."))
        if isinstance(forms, str):  # Chinese: a measure word and the noun
            return f"{_number(value, self.lang)} {forms}"
        word = forms.get(plural_category(self.lang, number)) or forms["other"]
        return f"{_number(value, self.lang)} {word}"


def join_list(items: list[Any] | tuple[Any, ...], lang: str, clauses: bool = False) -> str:
    """Items as a person writes them: "a", "a and b", "a, b and c", with each language's
    separators (list.* of phrases.yaml); `clauses` joins whole clauses (list.clause-*)."""
    words = [str(i) for i in items]
    prefix = "list.clause-" if clauses else "list."
    comma, last = str(phrases()[prefix + "comma"][lang]), str(phrases()[prefix + "and"][lang])
    if len(words) <= 1:
        return "".join(words)
    return comma.join(words[:-1]) + last + words[-1]


def _format_value(value: Any, lang: str) -> str:
    if isinstance(value, bool):
        return _BOOL[lang][0 if value else 1]
    if isinstance(value, list | tuple):
        return join_list(value, lang)
    if value is None:
        return ""
    return str(value)


def _template(entry: Any, lang: str, params: dict[str, Any]) -> str:
    """A phrase's text in one language; a mapping of plural categories picks by `n`."""
    text = entry.get(lang) or entry["en"]
    if isinstance(text, dict):
        n = next((params[k] for k in ("n", "count", "tools", "seconds") if k in params), 0)
        if n == 0 and "zero" in text:
            return str(text["zero"])
        return str(text.get(plural_category(lang, float(n))) or text["other"])
    return str(text)


def _changes(params: dict[str, Any], lang: str) -> str:
    """ "search_invoices was added and list_orders was removed": the non-empty parts only."""
    parts = []
    for what in ("added", "removed", "changed"):
        names = params.get(what) or []
        if names:
            entry = phrases()[f"delta.{what}"]
            values = {"names": join_list(names, lang), "n": len(names)}
            parts.append(_template(entry, lang, values).format(**values))
    if not parts:
        return _template(phrases()["delta.none"], lang, {})
    return join_list(parts, lang, clauses=True)


def _fill(key: str, params: dict[str, Any]) -> Text:
    entry = phrases()[key]
    out = {}
    for lang in LANGUAGES:
        template = _template(entry, lang, params)
        values = {k: _format_value(v, lang) for k, v in params.items()}
        if "{changes}" in template:
            values["changes"] = _changes(params, lang)
        try:
            out[lang] = _Formatter(lang).format(template, **values)
        except (KeyError, IndexError) as exc:
            raise KeyError(f"phrase {key} ({lang}) needs {exc}") from None
    return _as_text(out)


def _as_text(by_lang: dict[str, str]) -> Text:
    return {"en": by_lang["en"], "zh": by_lang["zh"], "ru": by_lang["ru"]}


def text(key: str, params: dict[str, Any] | None = None) -> Text:
    """One phrase of phrases.yaml in every language (a console line, a host message)."""
    return _fill(key, params or {})


def joined(first: Text, second: Text) -> Text:
    """Two sentences in every language: zh runs on with no space, en and ru after one."""
    return _as_text({lang: _joined(first, second, lang) for lang in LANGUAGES})


def _joined(first: Text, second: Text, lang: str) -> str:
    """Two sentences in one language: zh runs on with no space, en and ru after one."""
    a, b = in_language(first, lang), in_language(second, lang)
    return a + b if lang == "zh" else f"{a} {b}"
