"""Grades as the spec words them: each check's level and the sentence of the spec it rests on.

The rules are data (app/probe/spec.yaml): for each rule, the versions that have it, the level a
fault gets there (MUST -> fail, SHOULD -> warn, a sentence without an RFC 2119 word or a host's
habit -> note) and the sentence quoted from that version's page. A check asks `found(...)` for
a fault and `passed(...)` for a clean result; both carry the passage, so a report can say what
the verdict rests on. A version that does not have the rule grades its fault as a note that
names the first version that does (`Passage.version` is then that version).

The Autobahn test suite's result classes and h2spec are the model: only a broken MUST fails,
and `--strict` (`failing(strict=True)`) makes a broken SHOULD fail too.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Literal

import yaml

from app.mcp import versions

__all__ = [
    "Check",
    "Level",
    "Passage",
    "failing",
    "first_version",
    "found",
    "has_rule",
    "passage",
    "passed",
    "rules",
]

Level = Literal["fail", "warn", "note", "pass"]
LEVELS: tuple[Level, ...] = ("fail", "warn", "note", "pass")
SPEC_URL = "https://modelcontextprotocol.io/specification/{version}/{page}"
RULES_FILE = Path(__file__).with_name("spec.yaml")


@dataclass(frozen=True)
class Passage:
    """A sentence of the spec in one version: where it is and the level a fault gets there."""

    rule: str
    version: str
    page: str
    text: str
    level: Level

    @property
    def url(self) -> str:
        return SPEC_URL.format(version=self.version, page=self.page)

    def as_json(self) -> dict[str, str]:
        return {"version": self.version, "page": self.url, "text": self.text}


@dataclass(frozen=True)
class Check:
    """One verdict: a check's id, its level, what it found, and the sentence it rests on."""

    id: str
    level: Level
    detail: str
    spec: Passage | None = None

    @property
    def ok(self) -> bool:
        """Not a failure (warnings and notes are not; `failing` decides under --strict)."""
        return self.level != "fail"

    def as_json(self, version: str | None, *, strict: bool = False) -> dict[str, Any]:
        return {
            "id": self.id,
            "level": self.level,
            "ok": not failing(self, strict=strict),
            "detail": self.detail,
            "protocolVersion": version,
            "spec": self.spec.as_json() if self.spec is not None else None,
        }


def failing(check: Check, *, strict: bool = False) -> bool:
    """Whether the check makes the run fail: a failure, or under --strict a warning too."""
    return check.level == "fail" or (strict and check.level == "warn")


@cache
def rules() -> dict[str, list[dict[str, Any]]]:
    """The rules file, read once."""
    loaded: dict[str, list[dict[str, Any]]] = yaml.safe_load(RULES_FILE.read_text("utf-8"))
    return loaded


def _covers(entry: dict[str, Any], version: str) -> bool:
    order = versions.VERSIONS
    low = order.index(str(entry.get("from", order[0])))
    high = order.index(str(entry.get("until", order[-1])))
    return version in order and low <= order.index(version) <= high


def passage(rule: str, version: str | None) -> Passage | None:
    """The rule's sentence in `version`, or None when that version does not have the rule."""
    for entry in rules()[rule]:
        if version is not None and _covers(entry, version):
            return Passage(rule, version, entry["page"], entry["text"], entry["level"])
    return None


def _first(rule: str) -> Passage:
    """The rule in the first version that has it."""
    for version in versions.VERSIONS:
        found_in = passage(rule, version)
        if found_in is not None:
            return found_in
    raise KeyError(rule)


def found(check: str, rule: str, version: str | None, detail: str) -> Check:
    """A fault against `rule`: graded at the rule's level in `version`, or a note naming the
    first version that has the rule when this one does not."""
    here = passage(rule, version)
    if here is not None:
        return Check(check, here.level, detail, here)
    return Check(check, "note", detail, _first(rule))


def passed(check: str, rule: str, version: str | None, detail: str) -> Check:
    """A clean result, with the sentence it was checked against (where the version has it)."""
    return Check(check, "pass", detail, passage(rule, version) or _first(rule))


def has_rule(rule: str, version: str | None) -> bool:
    return passage(rule, version) is not None


def first_version(rule: str) -> str:
    return _first(rule).version
