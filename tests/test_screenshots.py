"""`make screenshots` still works: its recipes find what they picture in today's interface.

tools/screenshots.py waits for each state it shows (a step, a room with two votes, an embedded
lesson); a change to the pages that breaks one of them fails here rather than on the day
someone refreshes the README's pictures. Each picture must be a PNG of the viewport's size.
"""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

from tests.test_browser_viewer import CHROMIUM

pytestmark = pytest.mark.browser


def test_the_three_pictures_are_made_from_the_running_lab(tmp_path: Path) -> None:
    if not Path(CHROMIUM).exists():
        pytest.skip("Debian's chromium is not installed (make browser installs it)")
    from tools.screenshots import SIZE, make

    paths = make(tmp_path)
    assert [p.name for p in paths] == ["lesson.png", "classroom.png", "embed.png"]
    for path in paths:
        data = path.read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n", path
        width, height = struct.unpack(">II", data[16:24])
        assert (width, height) == (SIZE["width"], SIZE["height"]), path
        assert 10_000 < len(data) < 400_000, (path, len(data))
