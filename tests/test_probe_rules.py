"""The grading rules as data (app/probe/spec.yaml): every version is covered at most once per
rule, every page and level is one the spec and the report know, and each level follows its
sentence's own RFC 2119 word (MUST -> fail, SHOULD -> warn, none -> note), but for the few the
file explains."""

from __future__ import annotations

import re

import pytest

from app.mcp import versions
from app.probe.levels import LEVELS, found, passage, passed, rules

# Levels that are not the sentence's own word, each explained beside its rule in spec.yaml.
EXPLAINED = {"schema", "model-names", "discover-first"}
PAGES = {
    "index", "basic/index", "basic/lifecycle", "basic/transports", "basic/transports/stdio",
    "basic/versioning", "basic/patterns/subscriptions", "basic/patterns/cancellation",
    "basic/utilities/cancellation", "server/tools", "server/discover",
    "server/utilities/pagination", "server/utilities/caching",
}  # fmt: skip


def word_level(text: str) -> str:
    if re.search(r"\bMUST( NOT)?\b", text):
        return "fail"
    if re.search(r"\bSHOULD( NOT)?\b", text):
        return "warn"
    return "note"


@pytest.mark.parametrize("rule", sorted(rules()))
def test_each_rule_grades_by_its_sentence_in_the_versions_that_have_it(rule: str) -> None:
    covered = [v for v in versions.VERSIONS if passage(rule, v) is not None]
    assert covered, rule
    for entry in rules()[rule]:
        assert entry["level"] in LEVELS and entry["level"] != "pass"
        assert entry["page"] in PAGES
        if rule not in EXPLAINED:
            assert entry["level"] == word_level(entry["text"]), (rule, entry["text"])
    hits = [
        sum(1 for e in rules()[rule] if passage(rule, v) is not None and v in _versions(e))
        for v in versions.VERSIONS
    ]
    assert max(hits) <= 1  # no version is covered twice


def _versions(entry: dict[str, str]) -> list[str]:
    order = versions.VERSIONS
    low = order.index(str(entry.get("from", order[0])))
    high = order.index(str(entry.get("until", order[-1])))
    return list(order[low : high + 1])


def test_a_rule_a_version_does_not_have_is_a_note_naming_the_first_that_does() -> None:
    older = found("tool-names", "tool-name-chars", "2024-11-05", "'bad name!' has ' ', '!'")
    assert older.level == "note" and older.spec is not None
    assert older.spec.version == "2025-11-25"
    newer = found("tool-names", "tool-name-chars", "2025-11-25", "same")
    assert newer.level == "warn" and newer.spec is not None and newer.spec.version == "2025-11-25"
    clean = passed("stdout", "stdout", "2026-07-28", "ok")
    assert clean.spec is not None and clean.spec.url.endswith("/2026-07-28/basic/transports/stdio")
    assert clean.as_json("2026-07-28")["spec"]["text"].startswith("The server MUST NOT write")
