"""Authorization on Streamable HTTP as the spec defines it (basic/authorization, 2025-11-25 and
2026-07-28), sans-IO: the protected MCP server's gate, its metadata, and a simulated OAuth 2.1
authorization server.

The MCP server is an OAuth resource server. A request without a valid token is refused with
401 and `WWW-Authenticate: Bearer resource_metadata="...", scope="..."` (the metadata URL is one
of the two discovery mechanisms a server MUST offer; the scope is a SHOULD). A valid token whose
scopes do not cover an operation gets 403 with `error="insufficient_scope"` and the scopes the
operation needs, the ones already granted included (the spec's recommended approach). The
client finds the authorization server through the Protected Resource Metadata (RFC 9728), the
server's own endpoints through its metadata (RFC 8414), sends the user to authorize with PKCE
(S256) and the `resource` parameter (RFC 8707), and trades the code for a Bearer token. What
happens between the user and the authorization server (sign-in, consent) is outside MCP.

A server's tools/list may depend on the token (2026-07-28: "MAY vary by the authorization
presented on the request"): a tool with a listing scope is served only to tokens holding it.
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, urlencode

from . import http

METADATA_PATH = "/.well-known/oauth-protected-resource"
ISSUER = "https://auth.example.com"
CLIENT_ID = "https://agent.example.com/oauth/client.json"  # a client ID metadata document
REDIRECT_URI = "http://127.0.0.1:33418/callback"


@dataclass(frozen=True)
class AuthConfig:
    """What a protected server requires. `tool_scopes`: the scope a token needs to see a tool in
    tools/list; `call_scopes`: the scope it needs to call one."""

    scopes_supported: tuple[str, ...] = ()
    challenge_scope: str | None = None
    tool_scopes: Mapping[str, str] = field(default_factory=dict)
    call_scopes: Mapping[str, str] = field(default_factory=dict)
    issuer: str = ISSUER


@dataclass(frozen=True)
class Refusal:
    """An HTTP answer that stops a request before the MCP server reads it."""

    status: int
    challenge: str  # the WWW-Authenticate value
    scope: str | None
    tool: str | None = None


def resource_uri(authority: str) -> str:
    """The MCP server's canonical URI (RFC 8707), the `resource` of its tokens."""
    return f"http://{authority}/mcp"


def metadata_url(authority: str) -> str:
    """The path-inserted well-known URI of the server's Protected Resource Metadata."""
    return f"http://{authority}{METADATA_PATH}/mcp"


def challenge(params: Mapping[str, str]) -> str:
    """A Bearer challenge, each parameter quoted (RFC 6750 section 3)."""
    return "Bearer " + ", ".join(f'{k}="{v}"' for k, v in params.items())


def parse_challenge(value: str) -> dict[str, str]:
    """The parameters of a Bearer challenge (no commas or quotes inside values here)."""
    scheme, _, rest = value.partition(" ")
    if scheme.lower() != "bearer":
        return {}
    out = {}
    for part in rest.split('", '):
        key, _, raw = part.partition("=")
        out[key.strip()] = raw.strip().strip('"')
    return out


def gate(
    config: AuthConfig, authority: str, scopes: frozenset[str] | None, message: Mapping[str, Any]
) -> Refusal | None:
    """The resource server's check of one POST: None lets the request through."""
    url = metadata_url(authority)
    if scopes is None:  # no token, or one this server does not accept: 401
        params = {"resource_metadata": url}
        if config.challenge_scope:
            params["scope"] = config.challenge_scope
        return Refusal(401, challenge(params), config.challenge_scope)
    params_of = message.get("params") or {}
    tool = params_of.get("name") if message.get("method") == "tools/call" else None
    needed = config.call_scopes.get(tool) if isinstance(tool, str) else None
    if needed and needed not in scopes:
        wanted = " ".join(sorted(scopes | {needed}))  # granted ones kept: nothing is lost
        text = f"Calling {tool} needs {needed}"
        params = {
            "error": "insufficient_scope",
            "scope": wanted,
            "resource_metadata": url,
            "error_description": text,
        }
        return Refusal(403, challenge(params), wanted, str(tool))
    return None


def visible(tools: list[dict[str, Any]], config: AuthConfig, scopes: frozenset[str]) -> list[Any]:
    """The tools this token may see: those without a listing scope, or whose scope it holds."""
    return [t for t in tools if config.tool_scopes.get(str(t.get("name")), "") in {"", *scopes}]


def refusal_text(refusal: Refusal) -> str:
    """The server's whole HTTP answer: status, the challenge, no body."""
    return http.response_text(refusal.status, [("WWW-Authenticate", refusal.challenge)])


# --------------------------------------------------------------------------- metadata
def resource_metadata(authority: str, config: AuthConfig) -> dict[str, Any]:
    """Protected Resource Metadata (RFC 9728): MUST name at least one authorization server."""
    return {
        "resource": resource_uri(authority),
        "authorization_servers": [config.issuer],
        "scopes_supported": list(config.scopes_supported),
        "bearer_methods_supported": ["header"],
    }


def server_metadata(issuer: str) -> dict[str, Any]:
    """Authorization Server Metadata (RFC 8414) with what an MCP client checks for."""
    return {
        "issuer": issuer,
        "authorization_endpoint": f"{issuer}/authorize",
        "token_endpoint": f"{issuer}/token",
        "response_types_supported": ["code"],
        "grant_types_supported": ["authorization_code", "refresh_token"],
        "code_challenge_methods_supported": ["S256"],
        "client_id_metadata_document_supported": True,
        # It names itself in each authorization response (RFC 9207), and says so.
        "authorization_response_iss_parameter_supported": True,
    }


def get_json(host: str, path: str, document: Mapping[str, Any]) -> str:
    """A GET and its 200 JSON answer, as one exchange's text."""
    request = http.request_text("GET", path, [("Host", host), ("Accept", "application/json")])
    body = json.dumps(document, separators=(",", ":"))
    return request + http.response_text(200, [("Content-Type", "application/json")], body, "GET")


# --------------------------------------------------------------------------- the AS
def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


@dataclass
class AuthorizationServer:
    """A simulated OAuth 2.1 authorization server: deterministic codes and tokens, and what
    each token grants (the resource server asks it, as token introspection would)."""

    issuer: str = ISSUER
    granted: dict[str, frozenset[str]] = field(default_factory=dict)
    issued: int = 0

    def scopes_of(self, token: str | None) -> frozenset[str] | None:
        return None if token is None else self.granted.get(token)

    def authorize(self, resource: str, scope: str) -> tuple[str, str, str]:
        """The browser's trip: the authorization request, its redirect with the code, and the
        code_verifier the client keeps (PKCE)."""
        self.issued += 1
        n = self.issued
        verifier = _b64(hashlib.sha256(f"verifier-{n}".encode()).digest())
        challenge_ = _b64(hashlib.sha256(verifier.encode()).digest())
        state = _b64(hashlib.sha256(f"state-{n}".encode()).digest())[:22]
        query = {
            "response_type": "code",
            "client_id": CLIENT_ID,
            "redirect_uri": REDIRECT_URI,
            "scope": scope,
            "state": state,
            "code_challenge": challenge_,
            "code_challenge_method": "S256",
            "resource": resource,
        }
        host = self.issuer.removeprefix("https://")
        target = "/authorize?" + urlencode(query, quote_via=quote)
        request = http.request_text("GET", target, [("Host", host)])
        code = _b64(hashlib.sha256(f"code-{n}".encode()).digest())[:32]
        iss = quote(self.issuer, safe="")
        location = f"{REDIRECT_URI}?code={code}&state={state}&iss={iss}"
        answer = http.response_text(302, [("Location", location)], method="GET")
        return request + answer, code, verifier

    def token(self, code: str, verifier: str, resource: str, scope: str) -> tuple[str, str]:
        """The token request and its answer; the access token it issues."""
        token = "at_" + _b64(hashlib.sha256(f"token-{code}".encode()).digest())[:32]
        self.granted[token] = frozenset(scope.split())
        form = urlencode(
            {
                "grant_type": "authorization_code",
                "code": code,
                "redirect_uri": REDIRECT_URI,
                "client_id": CLIENT_ID,
                "code_verifier": verifier,
                "resource": resource,
            },
            quote_via=quote,
        )
        host = self.issuer.removeprefix("https://")
        headers = [
            ("Host", host),
            ("Content-Type", "application/x-www-form-urlencoded"),
            ("Content-Length", str(len(form.encode()))),
        ]
        request = http.request_text("POST", "/token", headers, form)
        document = {"access_token": token, "token_type": "Bearer", "expires_in": 3600}
        body = json.dumps({**document, "scope": scope}, separators=(",", ":"))
        answer = http.response_text(200, [("Content-Type", "application/json")], body)
        return request + answer, token
