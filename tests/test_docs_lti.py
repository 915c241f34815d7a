"""docs/LTI.md's troubleshooting lists every reason a launch, a pick or a score can be refused.

The reasons are read from the code, not copied: the lab's own (app/web/lti.py: `_refuse(...)`
and the JSON `error` of /lti/score) and pylti1p3's on the paths the lab takes (OIDC login, the
launch's validation and storage, the validators of each message type, the tool configuration
file, `put_grade`). A new reason in either, after an upgrade of pylti1p3 too, fails here until
the guide says what it means. An f-string counts by its text before the first placeholder.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pylti1p3

ROOT = Path(__file__).resolve().parents[1]
GUIDE = (ROOT / "docs" / "LTI.md").read_text(encoding="utf-8")
LIBRARY = Path(pylti1p3.__file__).parent

# pylti1p3 functions the lab never reaches: services it does not use (names and roles, course
# groups, creating or reading line items), getters called only after validation made them
# succeed, and a login redirect that always has the lab's launch URL.
UNREACHED = {
    "get_nrps",
    "get_cgs",
    "get_deep_link",
    "get_ags",
    "_prepare_redirect_url",
    "get_lineitem",
    "get_lineitems_page",
    "find_or_create_lineitem",
    "get_grades",
}
SOURCES = [
    "oidc_login.py",
    "message_launch.py",
    "assignments_grades.py",
    "tool_config/json_file.py",
    *sorted(
        p.relative_to(LIBRARY).as_posix() for p in (LIBRARY / "message_validators").glob("*.py")
    ),
]


def text_of(node: ast.expr | None) -> str | None:
    """The literal text of a message argument ("" for an f-string starting with a value)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        first = node.values[0] if node.values else None
        return first.value if isinstance(first, ast.Constant) else ""
    if isinstance(node, ast.BinOp):
        return text_of(node.left)
    return None


def library_reasons() -> set[str]:
    found = set()
    for name in SOURCES:
        tree = ast.parse((LIBRARY / name).read_text(encoding="utf-8"))
        for function in ast.walk(tree):
            if not isinstance(function, ast.FunctionDef) or function.name in UNREACHED:
                continue
            for node in ast.walk(function):
                if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call):
                    message = text_of(node.exc.args[0] if node.exc.args else None)
                    if message:
                        found.add(message.strip())
    return found


def lab_reasons() -> set[str]:
    tree = ast.parse((ROOT / "app" / "web" / "lti.py").read_text(encoding="utf-8"))
    found = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
            continue
        if node.func.id == "_refuse" and node.args:
            found.add(text_of(node.args[0]) or "")
        if node.func.id == "jsonify":
            found |= {text_of(k.value) or "" for k in node.keywords if k.arg == "error"}
    return {reason.strip() for reason in found if reason.strip()}


def test_every_reason_the_lab_gives_is_in_the_troubleshooting_list() -> None:
    reasons = lab_reasons()
    assert {"target_link_uri is not this tool", "unknown or expired launch"} <= reasons
    assert len(reasons) >= 8
    assert sorted(r for r in reasons if r not in GUIDE) == []


def test_every_reason_pylti1p3_gives_on_the_labs_path_is_in_the_list() -> None:
    reasons = library_reasons()
    assert {"State not found", "Invalid Nonce", "Can't find lineitem to put grade"} <= reasons
    assert "Unknown response type received for results" not in reasons  # a path not taken
    assert sorted(r for r in reasons if r not in GUIDE) == []


def test_the_guide_has_the_sections_the_issue_names() -> None:
    for heading in (
        "## Moodle",
        "## Canvas",
        "## Deep linking and the gradebook column",
        "## Troubleshooting",
    ):
        assert heading in GUIDE
    assert "https://purl.imsglobal.org/spec/lti-ags/scope/score" in GUIDE
    assert '"lineItem"' in GUIDE
