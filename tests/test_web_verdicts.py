"""A choice's explanation loses the verdict it opens with, in every language, since the page says
the verdict itself; the words come from phrases.yaml (verdict.words)."""

from __future__ import annotations

import pytest

from app.web.views import reason


@pytest.mark.parametrize(
    ("given", "shown"),
    [
        ("Right: the cursor is opaque.", "The cursor is opaque."),
        ("Not quite — the server decides.", "The server decides."),
        ("Верно: курсор непрозрачен.", "Курсор непрозрачен."),
        ("Не совсем. Решает сервер.", "Решает сервер."),
        ("正确：游标是不透明的。", "游标是不透明的。"),
        ("不完全对，服务器说了算。", "服务器说了算。"),
        ("Nowhere is a page size promised.", "Nowhere is a page size promised."),
        ("The cursor is opaque.", "The cursor is opaque."),
    ],
)
def test_a_leading_verdict_is_dropped_in_each_language(given: str, shown: str) -> None:
    assert reason(given) == shown
