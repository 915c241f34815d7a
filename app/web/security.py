"""Security headers on every response and the Origin check on every websocket upgrade.

Two hooks, installed on the app by `init_app`, so they cover every blueprint, every error page
and every static file, including routes added later. The headers are a dozen lines of
`after_request` rather than flask-talisman: talisman's defaults (HTTPS redirects, HSTS, secure
cookies, CSP nonces) are wrong for a lab served over plain HTTP on 127.0.0.1 or a classroom LAN
and would have to be switched off one by one, while our policy is one fixed string with no
inline code to nonce, so code we can read in one screen and test is the smaller risk.

The Origin check runs in `before_request`, before any websocket view (flask-sock's handshake
happens inside the view), so a refused upgrade gets a plain 403 and never a 101. Browsers always
send Origin on a websocket upgrade, so a page on another site cannot ride a student's or an
instructor's cookies into a socket (cross-site websocket hijacking); clients without an Origin
(scripts, the SDK, curl) are not browsers and pass. Allowed: the lab's own host, and the
origins listed in `LAB_ALLOWED_ORIGINS` (space-separated), e.g. a reverse proxy's public name.
`LAB_FRAME_ANCESTORS` (space-separated origins) lists the pages allowed to frame the lab.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from flask import Flask, Response, abort, current_app, request

POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
    "frame-ancestors {ancestors}"
)


def origins(value: object) -> list[str]:
    """A space-separated setting (or a list) as a list of origins without trailing slashes."""
    items = value.split() if isinstance(value, str) else list(value or [])  # type: ignore[call-overload]
    return [str(item).rstrip("/") for item in items]


def content_security_policy(frame_ancestors: object = None) -> str:
    """The lab's CSP: nothing inline, nothing evaluated, framed by itself and `frame_ancestors`."""
    return POLICY.format(ancestors=" ".join(["'self'", *origins(frame_ancestors)]))


def _add_headers(response: Response) -> Response:
    headers = response.headers
    # A view may widen the policy for its own page on purpose (the LTI deep-linking return,
    # whose form posts to the platform); every other response gets the lab's, computed from
    # the configuration of the moment.
    headers.setdefault(
        "Content-Security-Policy",
        content_security_policy(current_app.config.get("FRAME_ANCESTORS")),
    )
    headers["X-Content-Type-Options"] = "nosniff"
    headers["Referrer-Policy"] = "no-referrer"
    headers["Cross-Origin-Opener-Policy"] = "same-origin"
    return response


def origin_allowed(origin: str | None, host: str, allowed: list[str]) -> bool:
    """Whether a websocket upgrade from `origin` may reach a lab served as `host`."""
    if origin is None:
        return True  # not a browser: nothing to hijack
    origin = origin.strip().rstrip("/")
    if origin in allowed:
        return True
    parts = urlsplit(origin)
    return parts.scheme in ("http", "https") and parts.netloc.lower() == host.lower()


def _check_upgrade() -> None:
    if request.headers.get("Upgrade", "").lower() != "websocket":
        return
    allowed = origins(current_app.config.get("ALLOWED_ORIGINS"))
    if not origin_allowed(request.headers.get("Origin"), request.host, allowed):
        current_app.logger.warning(
            "websocket refused: Origin %r is not %s", request.headers.get("Origin"), request.host
        )
        abort(403)


def init_app(app: Flask) -> None:
    """Install both hooks (they read the configuration on each request, so it can change);
    CSP holds the policy at start for views that derive their own from it."""
    app.config["CSP"] = content_security_policy(app.config.get("FRAME_ANCESTORS"))
    app.after_request(_add_headers)
    app.before_request(_check_upgrade)
