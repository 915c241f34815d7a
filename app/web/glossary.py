"""The glossary page (/glossary, one anchor per term) and the Jinja hooks that link terms.

`glossed` is `visible` plus links: the text is escaped piece by piece and the first occurrence
of each glossary term becomes a link to its entry, so no text from a scenario is ever trusted
as HTML. `terms_of` lists the entries a step's texts mention, for the small "Terms" disclosure
(templates/partials/_terms.html). `topic` names a library card's topic chip in the student's
language.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from flask import Blueprint, Flask, render_template, url_for
from markupsafe import Markup

from app.engine import glossary
from app.web.i18n import pick, select_locale
from app.web.text import visible

bp = Blueprint("glossary", __name__)


@bp.get("/glossary")
def page() -> str:
    return render_template("glossary.html", lang=select_locale(), entries=glossary.entries())


def glossed(value: Any, lang: str, titled: bool = True, named: bool = True) -> Markup:
    """The text escaped like `visible`, with each glossary term linked to its entry once;
    `titled=False` leaves the definition out of the link's title (a step's narration lists its
    terms right under it, and travels with every step); `named=False` leaves the language out
    of the link (a socket's message goes to a page whose script keeps the language cookie that
    the glossary reads)."""
    text = "" if value is None else str(value)
    out, at = [], 0
    for start, end, entry in glossary.find(text, lang):
        href = url_for("glossary.page", lang=lang if named else None, _anchor=entry.anchor)
        label, meaning = visible(text[start:end]), entry.text.get(lang, entry.text["en"])
        link = (
            Markup('<a href="{}" title="{}">{}</a>').format(href, meaning, label)
            if titled
            else Markup('<a href="{}">{}</a>').format(href, label)
        )
        out += [visible(text[at:start]), link]
        at = end
    out.append(visible(text[at:]))
    return Markup("").join(out)


def terms_of(texts: Iterable[Any], lang: str) -> list[glossary.Entry]:
    """The glossary entries the texts mention (each once, in order of first mention)."""
    seen: dict[str, glossary.Entry] = {}
    for value in texts:
        for _, _, entry in glossary.find(pick(value, lang), lang):
            seen.setdefault(entry.key, entry)
    return list(seen.values())


def topic(tag: Any, lang: str) -> str:
    """A topic chip in the student's language (protocol names such as tools/list stay as is)."""
    names = glossary.topics().get(str(tag))
    return str(tag) if names is None else names.get(lang) or names["en"]


def init_app(app: Flask) -> None:
    app.jinja_env.filters.update(glossed=glossed, topic=topic)
    app.jinja_env.globals["terms_of"] = terms_of
    app.register_blueprint(bp)
