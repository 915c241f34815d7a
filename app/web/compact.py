"""Templates without their indentation: the region partials are written indented for people to
read, and their markup travels in every socket message, where the indentation was a tenth of
the bytes. A Jinja extension strips the leading whitespace of each line of the templates under
partials/ and classroom/ when they are loaded (once), so the markup keeps its line breaks (a
space between inline elements) and loses only indentation. No template there has literal text
inside a <pre> on a line of its own (pre contents come from filters), so nothing shown changes.
"""

from __future__ import annotations

import re

from jinja2.ext import Extension

_INDENT = re.compile(r"^[ \t]+", re.MULTILINE)
COMPACT = ("partials/", "classroom/")


class Compact(Extension):
    def preprocess(self, source: str, name: str | None, filename: str | None = None) -> str:
        return _INDENT.sub("", source) if name and name.startswith(COMPACT) else source
