"""The whatif= value: a link that reproduces the same what-if anywhere, and a decoder that
treats every value as hostile. Random, truncated, oversized, wrong-format and valid-but-absurd
values all end in a WhatIfError whose sentence exists in en, zh and ru, never in a traceback."""

from __future__ import annotations

import base64
import json
import re
import zlib

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.engine.whatif import WhatIf, WhatIfError, decode, encode, from_text, load, model

URL_SAFE = re.compile(r"^[0-9]+\.[A-Za-z0-9_-]+$")
SAMPLE = WhatIf(
    "pagination",
    "2025-11-25",
    "stdio",
    (
        {"change": "pageSize", "server": "files", "value": 2},
        {
            "change": "addTool",
            "server": "files",
            "tool": {"name": "zip_files", "description": "压缩 и сжать"},
        },
        {"change": "loseNext", "after": 5},
    ),
)


def pack(data: object) -> str:
    """A value built by hand, as a forger would."""
    raw = json.dumps(data).encode()
    packer = zlib.compressobj(9, zlib.DEFLATED, -15)
    body = base64.urlsafe_b64encode(packer.compress(raw) + packer.flush()).rstrip(b"=")
    return f"1.{body.decode()}"


def refused(value: object) -> WhatIfError:
    with pytest.raises(WhatIfError) as caught:
        decode(value)  # type: ignore[arg-type]
    error = caught.value
    assert all(error.text[lang].strip() for lang in ("en", "zh", "ru"))
    assert "{" not in error.text["en"]  # every placeholder filled
    return error


def test_a_what_if_survives_the_link_unchanged_and_the_same_what_if_is_the_same_text():
    value = encode(SAMPLE)
    assert URL_SAFE.match(value) and len(value) < 400
    assert decode(value) == SAMPLE
    assert encode(decode(value)) == value
    rebuilt = WhatIf(
        SAMPLE.scenario, SAMPLE.version, SAMPLE.transport, tuple(map(dict, SAMPLE.changes))
    )
    assert encode(rebuilt) == value


def test_a_link_or_a_query_holding_the_value_reads_the_same(tmp_path):
    value = encode(SAMPLE)
    assert from_text(f"https://lab.example/scenario/pagination?step=4&whatif={value}#x") == SAMPLE
    assert from_text(f"whatif={value}") == SAMPLE
    (tmp_path / "link.txt").write_text(value + "\n")
    (tmp_path / "w.json").write_text(json.dumps(SAMPLE.as_data()))
    (tmp_path / "w.yaml").write_text(
        "format: 1\nscenario: pagination\nversion: '2025-11-25'\n"
        "transport: stdio\nchanges:\n  - {change: cache, value: false}\n"
    )
    assert load(str(tmp_path / "link.txt")) == SAMPLE
    assert load(str(tmp_path / "w.json")) == SAMPLE
    assert load(str(tmp_path / "w.yaml")).changes == ({"change": "cache", "value": False},)


def test_a_yaml_file_with_aliases_is_refused(tmp_path):
    bomb = (
        "a: &a [x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a]\nc: [*b, *b, *b]\n"
    )
    (tmp_path / "bomb.yaml").write_text(bomb)
    with pytest.raises(WhatIfError, match="cannot be read"):
        load(str(tmp_path / "bomb.yaml"))


@pytest.mark.parametrize(
    ("value", "key"),
    [
        ("", "unreadable"),
        ("hello", "unreadable"),
        ("1.", "unreadable"),
        ("1.!!!!", "unreadable"),
        ("2." + encode(SAMPLE)[2:], "format"),
        ("0." + encode(SAMPLE)[2:], "format"),
        (encode(SAMPLE)[:-12], "unreadable"),
        ("1." + "A" * (model.MAX_ENCODED + 1), "too-long"),
        (pack([1, 2, 3]), "unreadable"),
        (pack({"format": 1}), "unreadable"),
        (pack({**SAMPLE.as_data(), "format": 7}), "format"),
        (pack({**SAMPLE.as_data(), "version": "1999-01-01"}), "unreadable"),
        (pack({**SAMPLE.as_data(), "changes": [{"change": "explode"}]}), "unknown-change"),
        (
            pack({**SAMPLE.as_data(), "changes": [{"change": "pageSize", "server": "files"}]}),
            "missing",
        ),
        (
            pack(
                {
                    **SAMPLE.as_data(),
                    "changes": [{"change": "pageSize", "server": "files", "value": 0}],
                }
            ),
            "range",
        ),
        (
            pack(
                {
                    **SAMPLE.as_data(),
                    "changes": [{"change": "pageSize", "server": "files", "value": 10**12}],
                }
            ),
            "range",
        ),
        (
            pack(
                {
                    **SAMPLE.as_data(),
                    "changes": [{"change": "pageSize", "server": "files", "value": "2"}],
                }
            ),
            "range",
        ),
        (
            pack({**SAMPLE.as_data(), "changes": [{"change": "wait", "after": 3, "seconds": -5}]}),
            "range",
        ),
        (pack({**SAMPLE.as_data(), "changes": [{"change": "cache", "value": "no"}]}), "field"),
        (
            pack({**SAMPLE.as_data(), "changes": [{"change": "cache", "value": True, "evil": 1}]}),
            "unknown-field",
        ),
        (
            pack(
                {
                    **SAMPLE.as_data(),
                    "changes": [{"change": "removeTool", "server": "a b", "name": "x"}],
                }
            ),
            "server-id",
        ),
        (
            pack(
                {
                    **SAMPLE.as_data(),
                    "changes": [{"change": "removeTool", "server": "a", "name": "<script>"}],
                }
            ),
            "tool-name",
        ),
        (
            pack({**SAMPLE.as_data(), "changes": [{"change": "cache", "value": True}] * 40}),
            "too-many",
        ),
    ],
)
def test_a_hostile_value_gets_a_readable_sentence(value, key):
    assert refused(value).key == key


def test_a_small_value_that_inflates_past_the_bound_is_refused_before_it_is_read():
    packer = zlib.compressobj(9, zlib.DEFLATED, -15)
    huge = packer.compress(b"{" + b" " * 2_000_000) + packer.flush()
    value = "1." + base64.urlsafe_b64encode(huge).rstrip(b"=").decode()
    assert len(value) < model.MAX_ENCODED
    assert refused(value).key == "too-long"


def test_deep_nesting_inside_the_bound_is_refused_not_a_recursion_error():
    assert (
        refused(pack({"format": 1, "x": [[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]})).key
        == "unreadable"
    )
    nested = "[" * 3000 + "1" + "]" * 3000
    raw = zlib.compress(nested.encode(), 9)[2:-4]  # raw deflate
    value = "1." + base64.urlsafe_b64encode(raw).rstrip(b"=").decode()
    assert refused(value).key == "unreadable"


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=300))
def test_fuzz_random_text_is_refused_readably(text):
    try:
        decode(text)
    except WhatIfError as exc:
        assert exc.text["ru"] and exc.text["zh"]


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=400))
def test_fuzz_random_bytes_as_a_value_are_refused_readably(raw):
    value = "1." + base64.urlsafe_b64encode(raw).rstrip(b"=").decode()
    with pytest.raises(WhatIfError):
        decode(value)


JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4)
    ),
    max_leaves=30,
)
KIND = st.sampled_from([*model.KINDS, "nope"])


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.builds(
            lambda kind, extra: {"change": kind, **extra},
            KIND,
            st.dictionaries(
                st.sampled_from(
                    ["server", "value", "name", "to", "tool", "after", "ms", "seconds", "x"]
                ),
                JSONISH,
                max_size=4,
            ),
        ),
        max_size=5,
    )
)
def test_fuzz_forged_changes_decode_or_are_refused_readably(changes):
    value = pack({**SAMPLE.as_data(), "changes": changes})
    try:
        whatif = decode(value)
    except WhatIfError as exc:
        assert exc.key in WHATIF_KEYS and exc.text["zh"]
    else:
        assert decode(encode(whatif)) == whatif


@settings(max_examples=100, deadline=None)
@given(st.integers(min_value=1, max_value=len(encode(SAMPLE)) - 1))
def test_fuzz_every_truncation_is_refused_or_decodes_to_a_whole_what_if(cut):
    value = encode(SAMPLE)[:cut]
    try:
        whatif = decode(value)
    except WhatIfError as exc:
        assert exc.key in ("unreadable", "format")
    else:
        assert whatif == SAMPLE  # base64 padding can make the very end optional


WHATIF_KEYS = {
    "unreadable",
    "format",
    "too-many",
    "too-long",
    "unknown-change",
    "missing",
    "unknown-field",
    "range",
    "server-id",
    "tool-name",
    "size",
    "field",
}
