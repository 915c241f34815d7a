"""An LTI 1.3 platform for tests, built on joserfc (the tool uses pylti1p3 on PyJWT/jwcrypto).

A small learning management system of its own: it starts launches (OIDC third-party login
initiation), answers the tool's authentication request with a signed id_token posted by an
auto-submitting form (a resource-link launch into a scenario, or a deep-linking request), checks
the tool's signatures against the tool's JWKS endpoint, issues AGS access tokens for a signed
client assertion, and records the deep-linking response's content items and every score posted
to a line item. Line item 1 is a column made by hand; a content item with a `lineItem` makes a
new one, and the launches of that scenario then name it, as a platform does for a deep link's
column. Its keys are generated when it is created.
"""

from __future__ import annotations

import json
import secrets
import time
import urllib.parse
import urllib.request
from typing import Any

from flask import Flask, abort, jsonify, redirect, request
from joserfc import jwt
from joserfc.jwk import KeySet, RSAKey
from markupsafe import escape

LTI = "https://purl.imsglobal.org/spec/lti/claim/"
AGS = "https://purl.imsglobal.org/spec/lti-ags/"
DL = "https://purl.imsglobal.org/spec/lti-dl/claim/"
LEARNER = "http://purl.imsglobal.org/vocab/lis/v2/membership#Learner"
INSTRUCTOR = "http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor"


class Platform:
    """The platform's state: its key, its registration of the tool, what it received."""

    def __init__(self, url: str, tool: str, client_id: str = "lab-client") -> None:
        self.url, self.tool, self.client_id = url, tool, client_id
        self.deployment_id = "deployment-1"
        self.key = RSAKey.generate_key(2048, parameters={"kid": "platform-key", "alg": "RS256"})
        self.scores: list[dict[str, Any]] = []
        self.scored: list[int] = []  # the line item of each score, in order
        self.lineitems: dict[int, dict[str, Any]] = {1: {"label": "Made by hand"}}
        self.links: dict[str, int] = {}  # scenario -> the line item its deep link made
        self.content_items: list[dict[str, Any]] = []
        self.tokens: set[str] = set()
        # A key to sign id_tokens with instead of the published one (a forger's, in a test).
        self.forged_key: RSAKey | None = None

    def tool_config(self, private_key_file: str, public_key_file: str) -> dict[str, Any]:
        """The tool's pylti1p3 registration of this platform (what LAB_LTI_CONFIG holds)."""
        return {
            self.url: [
                {
                    "default": True,
                    "client_id": self.client_id,
                    "auth_login_url": f"{self.url}/auth",
                    "auth_token_url": f"{self.url}/token",
                    "key_set_url": f"{self.url}/jwks",
                    "private_key_file": private_key_file,
                    "public_key_file": public_key_file,
                    "deployment_ids": [self.deployment_id],
                }
            ]
        }

    def tool_keys(self) -> KeySet:
        with urllib.request.urlopen(f"{self.tool}/lti/jwks", timeout=10) as response:
            return KeySet.import_key_set(json.load(response))

    def verify(self, token: str, audience: str) -> dict[str, Any]:
        """The claims of a JWT the tool signed, checked against the tool's published keys."""
        decoded = jwt.decode(token, self.tool_keys(), algorithms=["RS256"])
        jwt.JWTClaimsRegistry(
            iss={"essential": True, "value": self.client_id},
            exp={"essential": True},
        ).validate(decoded.claims)
        aud = decoded.claims.get("aud")
        if audience not in (aud if isinstance(aud, list) else [aud]):
            raise ValueError(f"audience {aud!r} is not {audience!r}")
        return dict(decoded.claims)

    def id_token(self, kind: str, scenario: str, nonce: str) -> str:
        now = int(time.time())
        claims: dict[str, Any] = {
            "iss": self.url,
            "aud": self.client_id,
            "sub": "instructor-7" if kind == "deeplink" else "student-42",
            "iat": now,
            "exp": now + 300,
            "nonce": nonce,
            "name": "Ada Student",
            LTI + "deployment_id": self.deployment_id,
            LTI + "version": "1.3.0",
            LTI + "target_link_uri": f"{self.tool}/lti/launch",
            LTI + "context": {"id": "course-1", "title": "MCP 101"},
        }
        if kind == "deeplink":
            claims[LTI + "message_type"] = "LtiDeepLinkingRequest"
            claims[LTI + "roles"] = [INSTRUCTOR]
            claims[DL + "deep_linking_settings"] = {
                "deep_link_return_url": f"{self.url}/deep-link-return",
                "accept_types": ["ltiResourceLink"],
                "accept_presentation_document_targets": ["iframe", "window"],
                "accept_multiple": False,
            }
        else:
            claims[LTI + "message_type"] = "LtiResourceLinkRequest"
            claims[LTI + "roles"] = [LEARNER]
            claims[LTI + "resource_link"] = {"id": "link-1", "title": "Lesson"}
            claims[LTI + "custom"] = {"scenario": scenario}
            claims[AGS + "claim/endpoint"] = {
                "scope": [AGS + "scope/lineitem", AGS + "scope/score"],
                "lineitem": f"{self.url}/lineitems/{self.links.get(scenario, 1)}",
                "lineitems": f"{self.url}/lineitems",
            }
        header = {"alg": "RS256", "kid": "platform-key", "typ": "JWT"}
        return jwt.encode(header, claims, self.forged_key or self.key)


def create_platform(platform: Platform) -> Flask:
    app = Flask("lti_platform")

    @app.get("/start/<kind>")
    def start(kind: str) -> Any:
        """Where a course's link points: OIDC login initiation towards the tool."""
        query = {
            "iss": platform.url,
            "login_hint": "user-hint",
            "target_link_uri": f"{platform.tool}/lti/launch",
            "lti_message_hint": f"{kind}:{request.args.get('scenario', '')}",
            "client_id": platform.client_id,
            "lti_deployment_id": platform.deployment_id,
        }
        return redirect(f"{platform.tool}/lti/login?" + urllib.parse.urlencode(query))

    @app.get("/auth")
    def auth() -> Any:
        """The authentication request: checks it, answers with an id_token in a form post."""
        args = request.args
        if (
            args.get("client_id") != platform.client_id
            or args.get("redirect_uri") != f"{platform.tool}/lti/launch"
            or args.get("response_type") != "id_token"
            or args.get("scope") != "openid"
            or args.get("response_mode") != "form_post"
            or not args.get("nonce")
            or not args.get("state")
        ):
            abort(400)
        kind, _, scenario = str(args.get("lti_message_hint", "")).partition(":")
        token = platform.id_token(kind, scenario, args["nonce"])
        return (
            "<!doctype html><title>Launching</title><body>"
            f'<form id="f" method="post" action="{escape(args["redirect_uri"])}">'
            f'<input type="hidden" name="id_token" value="{escape(token)}">'
            f'<input type="hidden" name="state" value="{escape(args["state"])}"></form>'
            "<script>document.getElementById('f').submit()</script></body>"
        )

    @app.get("/jwks")
    def jwks() -> Any:
        return jsonify({"keys": [platform.key.as_dict(private=False)]})

    @app.post("/token")
    def token() -> Any:
        form = request.form
        if form.get("grant_type") != "client_credentials":
            abort(400)
        claims = platform.verify(form.get("client_assertion", ""), f"{platform.url}/token")
        if claims.get("sub") != platform.client_id:
            abort(401)
        access = secrets.token_urlsafe(24)
        platform.tokens.add(access)
        scope = form.get("scope", "")
        return jsonify(access_token=access, token_type="Bearer", expires_in=3600, scope=scope)

    @app.post("/lineitems/<int:item>/scores")
    def scores(item: int) -> Any:
        if item not in platform.lineitems:
            abort(404)
        bearer = request.headers.get("Authorization", "").removeprefix("Bearer ")
        if bearer not in platform.tokens:
            abort(401)
        if request.mimetype != "application/vnd.ims.lis.v1.score+json":
            abort(415)
        platform.scores.append(json.loads(request.get_data(as_text=True)))
        platform.scored.append(item)
        return jsonify({})

    @app.post("/deep-link-return")
    def deep_link_return() -> Any:
        claims = platform.verify(request.form.get("JWT", ""), platform.url)
        if claims.get(LTI + "message_type") != "LtiDeepLinkingResponse":
            abort(400)
        for content in claims.get(DL + "content_items") or []:
            platform.content_items.append(content)
            if isinstance(content.get("lineItem"), dict):
                item = max(platform.lineitems) + 1
                platform.lineitems[item] = content["lineItem"]
                platform.links[str((content.get("custom") or {}).get("scenario"))] = item
        return "<!doctype html><title>Added</title><p id='added'>Added to the course.</p>"

    return app
