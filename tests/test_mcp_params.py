"""x-mcp-header (2026-07-28, Streamable HTTP, Custom Headers from Tool Parameters): which
annotations are valid, and the Mcp-Param-* headers a tools/call carries."""

from __future__ import annotations

import pytest

from app.mcp import http
from app.mcp.params import header_params, invalid_header_params, param_headers

# The spec's own example tool.
EXECUTE_SQL = {
    "name": "execute_sql",
    "description": "Execute SQL on Google Cloud Spanner",
    "inputSchema": {
        "type": "object",
        "properties": {
            "region": {
                "type": "string",
                "description": "The region to execute the query in",
                "x-mcp-header": "Region",
            },
            "query": {"type": "string", "description": "The SQL query to execute"},
        },
        "required": ["region", "query"],
    },
}


def obj(**properties: object) -> dict[str, object]:
    return {"type": "object", "properties": properties}


def test_the_spec_example_mirrors_region():
    schema = EXECUTE_SQL["inputSchema"]
    assert invalid_header_params(schema) == []
    assert header_params(schema) == [("Region", ("region",))]
    arguments = {"region": "us-west1", "query": "SELECT * FROM users"}
    assert param_headers(schema, arguments) == [("Mcp-Param-Region", "us-west1")]


def test_nested_properties_are_reachable_and_read_at_their_exact_path():
    schema = obj(
        options=obj(limit={"type": "integer", "x-mcp-header": "Limit"}),
        confirm={"type": "boolean", "x-mcp-header": "Confirm"},
    )
    assert invalid_header_params(schema) == []
    assert header_params(schema) == [("Limit", ("options", "limit")), ("Confirm", ("confirm",))]
    headers = param_headers(schema, {"options": {"limit": 10}, "confirm": True, "limit": 99})
    assert headers == [("Mcp-Param-Limit", "10"), ("Mcp-Param-Confirm", "true")]


@pytest.mark.parametrize(
    ("kind", "value", "header"),
    [
        ("string", "us-west1", "us-west1"),
        ("string", "Hello, 世界", "=?base64?SGVsbG8sIOS4lueVjA==?="),
        ("string", " padded ", "=?base64?IHBhZGRlZCA=?="),
        ("string", "line1\nline2", "=?base64?bGluZTEKbGluZTI=?="),
        ("string", "=?base64?literal?=", "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="),
        ("string", "", "=?base64??="),
        ("integer", 42, "42"),
        ("integer", -7, "-7"),
        ("integer", 42.0, "42"),
        ("boolean", True, "true"),
        ("boolean", False, "false"),
    ],
)
def test_values_are_converted_then_encoded(kind, value, header):
    schema = obj(v={"type": kind, "x-mcp-header": "Val"})
    assert param_headers(schema, {"v": value}) == [("Mcp-Param-Val", header)]
    assert http.read_header_value(header) == (
        value if isinstance(value, str) else header  # only text is ever sentinel-encoded
    )


@pytest.mark.parametrize("arguments", [{}, {"region": None}, {"query": "x"}, None])
def test_an_absent_or_null_argument_sends_no_header(arguments):
    assert param_headers(EXECUTE_SQL["inputSchema"], arguments) == []


def test_an_absent_parent_object_sends_no_header():
    schema = obj(options=obj(limit={"type": "integer", "x-mcp-header": "Limit"}))
    assert param_headers(schema, {"options": None}) == []
    assert param_headers(schema, {"options": "not an object"}) == []


INVALID = {
    "empty": obj(a={"type": "string", "x-mcp-header": ""}),
    "not a string": obj(a={"type": "string", "x-mcp-header": 5}),
    "space": obj(a={"type": "string", "x-mcp-header": "Two Words"}),
    "colon": obj(a={"type": "string", "x-mcp-header": "X:Y"}),
    "non-ascii": obj(a={"type": "string", "x-mcp-header": "Régión"}),
    "crlf": obj(a={"type": "string", "x-mcp-header": "X\r\nEvil: 1"}),
    "duplicate ignoring case": obj(
        a={"type": "string", "x-mcp-header": "Region"},
        b={"type": "string", "x-mcp-header": "REGION"},
    ),
    "number": obj(a={"type": "number", "x-mcp-header": "A"}),
    "object": obj(a={"type": "object", "x-mcp-header": "A"}),
    "array": obj(a={"type": "array", "items": {"type": "string"}, "x-mcp-header": "A"}),
    "no type": obj(a={"x-mcp-header": "A"}),
    "two types": obj(a={"type": ["string", "integer"], "x-mcp-header": "A"}),
    "root": {"type": "string", "x-mcp-header": "A"},
    "items": obj(a={"type": "array", "items": {"type": "string", "x-mcp-header": "A"}}),
    "anyOf": {"anyOf": [obj(a={"type": "string", "x-mcp-header": "A"})]},
    "allOf": {"type": "object", "allOf": [obj(a={"type": "string", "x-mcp-header": "A"})]},
    "not": obj(a={"type": "string", "not": {"type": "string", "x-mcp-header": "A"}}),
    "if/then": {
        "type": "object",
        "if": obj(),
        "then": obj(a={"type": "string", "x-mcp-header": "A"}),
    },
    "$defs": {
        "type": "object",
        "properties": {"a": {"$ref": "#/$defs/s"}},
        "$defs": {"s": {"type": "string", "x-mcp-header": "A"}},
    },
    "additionalProperties": {
        "type": "object",
        "additionalProperties": {"type": "string", "x-mcp-header": "A"},
    },
    "patternProperties": {
        "type": "object",
        "patternProperties": {"^a": {"type": "string", "x-mcp-header": "A"}},
    },
}


@pytest.mark.parametrize("schema", INVALID.values(), ids=INVALID.keys())
def test_each_invalid_annotation_is_reported_and_refused(schema):
    reasons = invalid_header_params(schema)
    assert len(reasons) == 1, reasons
    assert reasons[0].startswith("/")  # where in the schema, as a JSON pointer
    with pytest.raises(ValueError):
        param_headers(schema, {"a": "x", "b": "y"})


def test_unreachable_annotations_are_never_mirrored():
    assert header_params(INVALID["items"]) == []
    assert header_params(INVALID["$defs"]) == []


def test_valid_shapes_are_accepted():
    schema = obj(
        a={"type": "string", "x-mcp-header": "A-b.c_d~1!#$%&'*+^`|"},
        n={"type": ["integer", "null"], "x-mcp-header": "N"},
        # a property *named* x-mcp-header, and instance data that merely looks like one
        **{"x-mcp-header": {"type": "string", "default": {"x-mcp-header": "X"}}},
    )
    assert invalid_header_params(schema) == []
    assert [name for name, _ in header_params(schema)] == ["A-b.c_d~1!#$%&'*+^`|", "N"]
    assert invalid_header_params({"type": "object"}) == []
    assert invalid_header_params(None) == []
