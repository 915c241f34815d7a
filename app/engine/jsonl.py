"""A trace as JSON Lines: one step per line, UTF-8, compact separators, "\\n" line ends.

The one encoding of a trace as a file. `mcp-lab trace --format jsonl` prints it and the web's
`/scenario/<id>/trace.jsonl` serves it, so a file downloaded from the viewer and one made on the
command line are the same bytes, and tools reading either need one parser.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from typing import Any


def jsonl_lines(trace: Iterable[Mapping[str, Any]]) -> Iterator[str]:
    """Each step as one line of JSON ending in a newline."""
    for step in trace:
        yield json.dumps(step, ensure_ascii=False, separators=(",", ":")) + "\n"
