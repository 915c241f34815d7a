"""The grading rules as data (app/probe/spec.yaml): every version is covered at most once per
rule, every page and level is one the spec and the report know, and each level follows its
sentence's own RFC 2119 word (MUST -> fail, SHOULD -> warn, none -> note), but for the few the
file explains."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from app.mcp import versions
from app.probe.levels import LEVELS, found, passage, passed, rules

ROOT = Path(__file__).resolve().parent.parent
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


# ------------------------------------------------------------ the rules the graders cite
GRADERS = ("app/probe", "app/tap")  # probe grades servers, the tap grades hosts: one rules file
CITING = {"found": 1, "passed": 1, "has_rule": 0, "passage": 0}  # which argument names the rule


def _rule_names(node: ast.AST, assigned: dict[str, set[str]]) -> set[str]:
    """The rule names an argument can hold: its string constants, or those given to its name."""
    if isinstance(node, ast.Name):
        return assigned.get(node.id, set())
    return {
        n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str)
    }


def cited_rules() -> dict[str, set[str]]:
    """Each rule a grader names, with the modules that name it (read from the source, so a
    verdict that is never reached in a test still counts)."""
    cited: dict[str, set[str]] = {}
    for package in GRADERS:
        for path in sorted((ROOT / package).glob("*.py")):
            tree = ast.parse(path.read_text("utf-8"))
            assigned: dict[str, set[str]] = {}
            for node in ast.walk(tree):
                if isinstance(node, ast.Assign) and len(node.targets) == 1:
                    target = node.targets[0]
                    if isinstance(target, ast.Name):
                        found_names = _rule_names(node.value, {})
                        assigned.setdefault(target.id, set()).update(found_names)
            for node in ast.walk(tree):
                if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
                    continue
                at = CITING.get(node.func.id)
                if at is None or len(node.args) <= at:
                    continue
                for rule in _rule_names(node.args[at], assigned):
                    cited.setdefault(rule, set()).add(str(path.relative_to(ROOT)))
    return cited


def test_probe_and_tap_cite_only_rules_of_the_file_and_every_rule_is_cited() -> None:
    """One rules file for both directions: a verdict naming a rule that is not in spec.yaml
    would crash the report (or grade without a sentence), and a rule nobody cites is a sentence
    the report card and the probe claim to check and do not."""
    cited = cited_rules()
    assert set(cited) <= set(rules()), sorted(set(cited) - set(rules()))
    assert set(rules()) <= set(cited), sorted(set(rules()) - set(cited))
    by_tap = {r for r, where in cited.items() if any(w.startswith("app/tap") for w in where)}
    by_probe = {r for r, where in cited.items() if any(w.startswith("app/probe") for w in where)}
    assert by_tap and by_probe  # the scan found both graders' verdicts
