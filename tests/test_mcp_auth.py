"""Authorization on Streamable HTTP (app.mcp.auth, app.mcp.clientauth): the resource server's
401 and 403 challenges as the 2025-11-25 and 2026-07-28 authorization pages define them, the
metadata documents, PKCE, a tool list that depends on the token, and what a new token does to
the client's cached list."""

from __future__ import annotations

import base64
import hashlib
from urllib.parse import parse_qs, urlsplit

import pytest

from app.mcp import auth, clientauth, framing, http
from app.mcp.schemas import check_message
from app.mcp.server import ServerConfig
from tests.pair import Pair, tools

CONFIG = auth.AuthConfig(
    scopes_supported=("orders:read", "orders:write"),
    challenge_scope="orders:read",
    tool_scopes={"cancel_order": "orders:write"},
    call_scopes={"refund_order": "orders:write"},
)
AUTHORITY = "127.0.0.1:3001"
CALL = {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "refund_order"}}


def test_no_token_is_a_401_whose_challenge_names_the_metadata_and_the_scope():
    refusal = auth.gate(CONFIG, AUTHORITY, None, {"method": "tools/list"})
    assert refusal is not None and refusal.status == 401
    status, headers, body = http.parse_response(auth.refusal_text(refusal))
    assert (status, body) == (401, "")
    assert auth.parse_challenge(headers["www-authenticate"]) == {
        "resource_metadata": "http://127.0.0.1:3001/.well-known/oauth-protected-resource/mcp",
        "scope": "orders:read",
    }


def test_a_valid_token_without_the_scope_gets_403_insufficient_scope_keeping_granted_ones():
    refusal = auth.gate(CONFIG, AUTHORITY, frozenset({"orders:read"}), CALL)
    assert refusal is not None and refusal.status == 403
    params = auth.parse_challenge(refusal.challenge)
    assert params["error"] == "insufficient_scope"
    assert params["scope"] == "orders:read orders:write"  # nothing already granted is lost
    assert params["resource_metadata"].endswith("/.well-known/oauth-protected-resource/mcp")
    assert auth.gate(CONFIG, AUTHORITY, frozenset({"orders:read", "orders:write"}), CALL) is None
    # other requests need only a valid token
    assert (
        auth.gate(CONFIG, AUTHORITY, frozenset({"orders:read"}), {"method": "tools/list"}) is None
    )


def test_the_metadata_documents_carry_what_the_spec_requires():
    prm = auth.resource_metadata(AUTHORITY, CONFIG)
    assert prm["resource"] == "http://127.0.0.1:3001/mcp"
    assert prm["authorization_servers"]  # MUST name at least one
    meta = auth.server_metadata(auth.ISSUER)
    assert "S256" in meta["code_challenge_methods_supported"]  # PKCE is checked before use
    assert meta["client_id_metadata_document_supported"] is True


def test_authorization_uses_pkce_s256_and_the_resource_in_both_requests():
    server = auth.AuthorizationServer()
    resource = auth.resource_uri(AUTHORITY)
    trip, code, verifier = server.authorize(resource, "orders:read")
    target = trip.split(" ", 2)[1]
    query = {k: v[0] for k, v in parse_qs(urlsplit(target).query).items()}
    digest = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).decode()
    assert query["code_challenge"] == digest.rstrip("=")
    assert query["code_challenge_method"] == "S256"
    assert query["resource"] == resource and query["scope"] == "orders:read"
    assert f"code={code}" in trip and "302 Found" in trip
    # the redirect names its issuer, which a 2026-07-28 client MUST check (RFC 9207)
    assert "&iss=https%3A%2F%2Fauth.example.com" in trip
    assert auth.server_metadata(auth.ISSUER)["authorization_response_iss_parameter_supported"]
    exchange, token = server.token(code, verifier, resource, "orders:read")
    form = parse_qs(exchange.split("\r\n\r\n", 1)[1].split("HTTP/1.1")[0])
    assert form["resource"] == [resource] and form["code_verifier"] == [verifier]
    assert server.scopes_of(token) == frozenset({"orders:read"})
    assert server.scopes_of("at_forged") is None


@pytest.mark.parametrize("version", ["2025-11-25", "2026-07-28"])
def test_the_tool_list_depends_on_the_token_and_is_private_in_2026(version):
    config = ServerConfig(
        "orders", tools=tools("read_order", "refund_order", "cancel_order"), auth=CONFIG
    )
    pair = Pair(version, config).connect()
    server = pair.server
    request = pair.client.list_tools().messages[0]
    [reader] = server.receive(request, scopes=frozenset({"orders:read"}))
    [writer] = server.receive(request, scopes=frozenset({"orders:read", "orders:write"}))
    names = [[t["name"] for t in r["result"]["tools"]] for r in (reader, writer)]
    assert names == [["read_order", "refund_order"], ["read_order", "refund_order", "cancel_order"]]
    if version == "2026-07-28":
        assert reader["result"]["cacheScope"] == "private"
    for reply in (reader, writer):
        assert check_message(reply, version, sender="server", request_method="tools/list") == []


def test_every_post_carries_the_bearer_token_once_the_client_has_one():
    link = framing.HttpLink("orders", "2026-07-28", authority=AUTHORITY)
    message = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": {}}}
    _, headers, _ = framing.parse_http_request(link.client_message(message, None, "at_x").text)
    assert headers["authorization"] == "Bearer at_x"
    _, headers, _ = framing.parse_http_request(link.client_message(message).text)
    assert "authorization" not in headers


@pytest.mark.parametrize(
    ("version", "scope", "dropped"),
    [("2026-07-28", "private", True), ("2026-07-28", "public", False), ("2025-11-25", None, True)],
)
def test_a_new_token_drops_a_list_only_a_private_or_legacy_cache_cannot_keep(
    version, scope, dropped
):
    config = ServerConfig("s", tools=tools("a"), cache_scope=scope or "public")
    pair = Pair(version, config).connect()
    pair.send(pair.client.list_tools())
    pair.settle()
    assert pair.client.take_token(
        "at_1", "a"
    ).events  # the first token: nothing was cached under another
    out = pair.client.take_token("at_2", "a b")
    left = [e for e in out.events if isinstance(e, clientauth.CacheLeftWithToken)]
    assert bool(left) == dropped
    assert pair.client.cache.valid is not dropped
    if left:
        assert left[0].private == (version == "2026-07-28")
    assert pair.client.snapshot()["authorization"] == {"token": "at_2", "scopes": ["a", "b"]}
