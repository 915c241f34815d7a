"""What happens after a protected server refuses a request (app.mcp.auth), as steps of a trace.

A 401 starts the whole discovery: the client reads the challenge, fetches the server's
Protected Resource Metadata (the URL the challenge named), then the authorization server's
metadata, sends the user's browser to authorize (the scope the challenge named, PKCE, the
resource) and trades the code for a token. A 403 with error="insufficient_scope" is the
step-up: the client knows the authorization server already and asks the user again for the
scopes the challenge named. Either way it then sends the refused request again, same id, with
the new token; one authorization per request, so a server that keeps refusing is not asked
forever. Steps with the authorization server go between the client (or the user's browser,
opened by the host) and the actor `authz`.
"""

from __future__ import annotations

from typing import Any

from app.mcp import auth, clientauth
from app.mcp.events import Output
from app.mcp.framing import Frame
from app.mcp.jsonrpc import Message
from app.mcp.versions import Era

from . import narration
from .context_actions import joined
from .recorder import actor
from .stage import Stage

AUTHZ = "authz"  # the actor id of the authorization server


def refused(run: Stage, sid: str, message: Message, refusal: auth.Refusal) -> None:
    """The step just recorded is a request the server refused: say so, then authorize."""
    step = run.trace[-1]
    params = auth.parse_challenge(refusal.challenge)
    event = clientauth.AuthChallenged(refusal.status, refusal.scope, params.get("error"))
    step["events"].append(event.as_dict())
    run.world.log(sid, event)
    phrase = "auth.unauthorized" if refusal.status == 401 else "auth.forbidden"
    values = {"server": sid, "scope": refusal.scope or "", "tool": refusal.tool or ""}
    if not run.said(step):
        step["narration"] = narration.text(phrase, values)
    attempts = run.world.auth_attempts
    key = (sid, message.get("id"))
    if attempts.get(key):
        return  # refused again after authorizing: the client gives up on this request
    attempts[key] = 1
    client = run.world.clients[sid]
    if client.auth.token is None:
        _discover(run, sid)
    _authorize(run, sid, refusal.scope or "")
    run.world.retrying.add(key)
    run.world.send_from_client(sid, Output([message]))


def _discover(run: Stage, sid: str) -> None:
    config = run.world.servers[sid].config.auth
    assert config is not None
    link = run.world.links[sid]
    path = f"{auth.METADATA_PATH}/mcp"
    prm = auth.get_json(link.authority, path, auth.resource_metadata(link.authority, config))
    run.emit(
        "transport",
        actor(sid, True),
        actor(sid, False),
        frame=Frame("http", f"GET {path}", prm),
        phrase="auth.prm",
        params={"server": sid, "issuer": config.issuer},
    )
    host = config.issuer.removeprefix("https://")
    metadata = auth.get_json(
        host, "/.well-known/oauth-authorization-server", auth.server_metadata(config.issuer)
    )
    run.emit(
        "transport",
        actor(sid, True),
        AUTHZ,
        frame=Frame("http", "GET /.well-known/oauth-authorization-server", metadata),
        phrase="auth.as-metadata",
        params={"server": sid, "issuer": config.issuer},
    )


def _authorize(run: Stage, sid: str, scope: str) -> None:
    world = run.world
    resource = auth.resource_uri(world.links[sid].authority)
    trip, code, verifier = world.authz.authorize(resource, scope)
    step_up = world.clients[sid].auth.token is not None
    run.emit(
        "transport",
        "host",
        AUTHZ,
        frame=Frame("http", "GET /authorize", trip),
        phrase="auth.step-up" if step_up else "auth.authorize",
        params={"server": sid, "scope": scope, "resource": resource},
    )
    if world.clients[sid].era is Era.MODERN and not run.said(run.trace[-1]):
        # 2026-07-28 makes the client check the issuer named in the redirect (RFC 9207).
        step = run.trace[-1]
        step["narration"] = joined(step["narration"], narration.text("auth.iss", {}))
    exchange, token = world.authz.token(code, verifier, resource, scope)
    out = world.clients[sid].take_token(token, scope)
    for event in out.events:
        world.log(sid, event)
    left = next((e for e in out.events if isinstance(e, clientauth.CacheLeftWithToken)), None)
    params: dict[str, Any] = {"server": sid, "scope": scope}
    phrase = "auth.token"
    if left is not None:
        phrase += "-private" if left.private else "-relist"
    run.emit(
        "transport",
        actor(sid, True),
        AUTHZ,
        frame=Frame("http", "POST /token", exchange),
        events=out.events,
        phrase=phrase,
        params=params,
    )


def retried(run: Stage, sid: str, message: Message) -> None:
    """The step just recorded sends a refused request again: say that it carries the token."""
    key = (sid, message.get("id"))
    if key not in run.world.retrying:
        return
    run.world.retrying.discard(key)
    step = run.trace[-1]
    if not run.said(step):
        values = {"server": sid, "method": message.get("method"), "id": message.get("id")}
        step["narration"] = narration.text("auth.retry", values)
