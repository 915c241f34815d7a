"""Which language a page speaks, and remembering the choice.

The order is: an explicit `?lang=` in the URL (a deep link or the language switch), then the
`lang` cookie set by an earlier choice, then the browser's Accept-Language, then English. Any
response to a request that named a language sets the cookie, so the choice is remembered. The
interface's strings come from the gettext catalogs in app/translations; narration and scenario
text come from the scenarios' own {"en", "zh", "ru"} dicts, picked with `pick`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from babel import Locale
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from flask import Flask, Response, request

from app.engine.step import LANGUAGES as LANGUAGES


def own_name(code: str) -> str:
    """A language by its own name, as a language menu shows it: CLDR's (through Babel), with
    a capital letter where the script has one (CLDR writes Russian in lower case)."""
    name = Locale.parse(code).get_display_name(code) or code
    return name[:1].upper() + name[1:]


NATIVE = {code: own_name(code) for code in LANGUAGES}
COOKIE = "lang"


def valid(lang: Any) -> str | None:
    """The language code if it is one we speak, else None."""
    return lang if isinstance(lang, str) and lang in LANGUAGES else None


def select_locale() -> str:
    """Flask-Babel's locale selector for ordinary HTTP requests."""
    return (
        valid(request.args.get("lang"))
        or valid(request.cookies.get(COOKIE))
        or request.accept_languages.best_match(LANGUAGES)
        or "en"
    )


def pick(text: Any, lang: str) -> str:
    """A scenario string in `lang`, falling back to English, for {"en","zh","ru"} dicts."""
    if isinstance(text, dict):
        return str(text.get(lang) or text.get("en") or next(iter(text.values()), ""))
    return "" if text is None else str(text)


def remember(response: Response) -> Response:
    """Set the cookie when a request named a language explicitly."""
    lang = valid(request.args.get("lang"))
    if lang and request.cookies.get(COOKIE) != lang:
        response.set_cookie(COOKIE, lang, max_age=365 * 24 * 3600, samesite="Lax")
    return response


def compile_catalogs(directory: Path) -> None:
    """Compile each messages.po to the .mo Flask-Babel reads, when missing or older.

    `make run` does this too; doing it here means `mcp-lab serve` on a fresh clone (and the
    tests) never falls back to English for want of a compiled catalog. A read-only install
    simply keeps the catalogs it shipped with.
    """
    for po in directory.glob("*/LC_MESSAGES/messages.po"):
        mo = po.with_suffix(".mo")
        try:
            if mo.exists() and mo.stat().st_mtime >= po.stat().st_mtime:
                continue
            with po.open("rb") as source:
                catalog = read_po(source)
            with mo.open("wb") as target:
                write_mo(target, catalog)
        except OSError:
            continue


def init_app(app: Flask) -> None:
    compile_catalogs(Path(app.root_path) / "translations")
    app.after_request(remember)
    app.jinja_env.globals.update(LANGUAGES=LANGUAGES, NATIVE=NATIVE)
    app.jinja_env.filters["pick"] = pick
