"""Well-formed but absurd what-ifs, run end to end: whatever a forged link asks for within the
schema (servers and tools that are not there, steps past the end, moves in the wrong order),
the sandbox answers with a trace or a WhatIfError carrying a sentence in every language, never
another exception."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.engine.library import default_scenarios_dir, load_library
from app.engine.whatif import WhatIf, WhatIfError, decode, encode, run_whatif

LIBRARY = load_library(default_scenarios_dir()).scenarios
SERVER = st.sampled_from(["files", "orders", "ghost"])
NAME = st.sampled_from(["read_file", "read_order", "search_invoices", "nothing", "x.y-z"])
AFTER = st.integers(min_value=0, max_value=40)
SCHEMA = st.sampled_from(
    [
        {"type": "object"},
        {"type": "object", "required": ["q"]},
        {"type": "string"},
        {"type": "object", "minimum": "x"},
    ]
)
TOOL = st.fixed_dictionaries(
    {"name": NAME}, optional={"inputSchema": SCHEMA, "description": st.text(max_size=30)}
)
CHANGE = st.one_of(
    st.fixed_dictionaries(
        {"change": st.just("pageSize"), "server": SERVER, "value": st.integers(1, 500)}
    ),
    st.fixed_dictionaries(
        {"change": st.just("ttl"), "server": SERVER, "ms": st.integers(0, 86_400_000)}
    ),
    st.fixed_dictionaries(
        {"change": st.just("listChanged"), "server": SERVER, "value": st.booleans()}
    ),
    st.fixed_dictionaries({"change": st.just("addTool"), "server": SERVER, "tool": TOOL}),
    st.fixed_dictionaries({"change": st.just("removeTool"), "server": SERVER, "name": NAME}),
    st.fixed_dictionaries(
        {"change": st.just("renameTool"), "server": SERVER, "name": NAME, "to": NAME}
    ),
    st.fixed_dictionaries({"change": st.just("twinServer"), "name": NAME, "server": SERVER}),
    st.fixed_dictionaries(
        {
            "change": st.just("protocolVersion"),
            "value": st.sampled_from(["2024-11-05", "2026-07-28"]),
        }
    ),
    st.fixed_dictionaries(
        {
            "change": st.sampled_from(["cache", "refreshOnListChanged", "rediscover"]),
            "value": st.booleans(),
        }
    ),
    st.fixed_dictionaries({"change": st.just("poll"), "seconds": st.integers(0, 3600)}),
    st.fixed_dictionaries(
        {"change": st.just("addToolNow"), "after": AFTER, "server": SERVER, "tool": TOOL}
    ),
    st.fixed_dictionaries(
        {"change": st.just("removeToolNow"), "after": AFTER, "server": SERVER, "name": NAME}
    ),
    st.fixed_dictionaries({"change": st.just("loseNext"), "after": AFTER}),
    st.fixed_dictionaries({"change": st.just("restartServer"), "after": AFTER, "server": SERVER}),
    st.fixed_dictionaries(
        {"change": st.just("wait"), "after": AFTER, "seconds": st.integers(1, 86_400)}
    ),
    st.fixed_dictionaries(
        {
            "change": st.just("callTool"),
            "after": AFTER,
            "tool": st.sampled_from(["files__read_file", "orders__read_order", "nope"]),
        }
    ),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(["pagination", "list-changed-add"]), st.lists(CHANGE, max_size=3))
def test_fuzz_absurd_what_ifs_run_or_are_refused_readably(sid, changes):
    whatif = decode(encode(WhatIf(sid, "2025-11-25", "stdio", tuple(changes))))
    try:
        run = run_whatif(whatif, LIBRARY)
    except WhatIfError as exc:
        assert all(
            exc.text[lang].strip() and "{" not in exc.text[lang] for lang in ("en", "zh", "ru")
        )
    else:
        assert run.trace[-1]["kind"] == "terminal"
        assert [s["index"] for s in run.trace] == list(range(len(run.trace)))
