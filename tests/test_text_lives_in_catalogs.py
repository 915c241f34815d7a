"""Text shown to students lives in the catalogs (gettext's .po files for the interface,
app/engine/phrases.yaml for narration), never in Python: a Chinese or Russian sentence in a
module is one a translator cannot find and a reviewer cannot check against the others."""

from __future__ import annotations

import re
from pathlib import Path

from app.web.i18n import LANGUAGES, NATIVE

APP = Path(__file__).resolve().parent.parent / "app"
NOT_ENGLISH = re.compile(r"[\u0400-\u04ff\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]")


def test_no_module_of_the_app_holds_chinese_or_russian_text() -> None:
    found = [
        f"{path.relative_to(APP.parent)}:{n}: {line.strip()[:80]}"
        for path in sorted(APP.rglob("*.py"))
        for n, line in enumerate(path.read_text("utf-8").splitlines(), 1)
        if NOT_ENGLISH.search(line)
    ]
    assert found == []


def test_the_language_menu_names_each_language_in_itself() -> None:
    assert set(NATIVE) == set(LANGUAGES)
    assert NATIVE["en"] == "English"
    assert re.fullmatch(r"[\u4e00-\u9fff]+", NATIVE["zh"])
    assert re.fullmatch(r"[А-Я][а-я]+", NATIVE["ru"])
