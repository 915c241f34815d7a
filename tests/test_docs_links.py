"""The README and the guides in docs/ point at what exists: every relative link and picture.

Guides move (the README's serving, benchmark and security sections went to docs/), so a link
left pointing at the old place, or a picture `make screenshots` no longer writes, fails here.
The README opens with the two commands a newcomer needs, as it always has.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"\]\(([^)\s]+)\)")


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_relative_link_and_anchor_resolves(page: Path) -> None:
    broken = []
    for target in LINK.findall(page.read_text(encoding="utf-8")):
        if re.match(r"[a-z]+:", target):
            continue  # https:, mailto:
        path, _, anchor = target.partition("#")
        found = (page.parent / path).resolve() if path else page
        if not found.exists():
            broken.append(target)
        elif anchor and found.suffix == ".md":
            headings = re.findall(r"^#+ (.+)$", found.read_text(encoding="utf-8"), re.M)
            slugs = {re.sub(r"[^\w\- ]", "", h.lower()).replace(" ", "-") for h in headings}
            if anchor not in slugs:
                broken.append(target)
    assert broken == []


def test_the_readme_opens_with_the_two_commands_and_shows_the_three_faces() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    first = text[text.index("```sh") : text.index("```", text.index("```sh") + 5)]
    assert first.splitlines()[1].startswith("make run ")
    assert first.splitlines()[2].startswith("make test ")
    for picture in ("lesson", "classroom", "embed"):
        assert f"](docs/img/{picture}.png)" in text
    for guide in ("STUDENTS", "CLASSROOM", "EMBEDDING", "SCORM", "LTI", "DEPLOY"):
        assert f"(docs/{guide}.md)" in text
