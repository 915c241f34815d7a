"""Security headers on every response, and the guard on everything a browser can change or open.

Two hooks, installed on the app by `init_app`, so they cover every blueprint, every error page
and every static file, including routes added later. The headers are a dozen lines of
`after_request` rather than flask-talisman: talisman's defaults (HTTPS redirects, HSTS, secure
cookies, CSP nonces) are wrong for a lab served over plain HTTP on 127.0.0.1 or a classroom LAN
and would have to be switched off one by one, while our policy is one fixed string with no
inline code to nonce, so code we can read in one screen and test is the smaller risk.
`LAB_FRAME_ANCESTORS` (space-separated origins) lists the pages allowed to frame the lab.

The guard runs in `before_request` on every request that can change something (any method but
GET, HEAD and OPTIONS) and on every websocket upgrade, before the view (flask-sock's handshake
happens inside it), so a refusal is a 403 page and never a 101. The rule itself is app.guard's,
shared with the served MCP endpoint: the request must come from the lab's own pages, by
Sec-Fetch-Site or by an Origin naming this host and port (another port of the same host is
another program), or from an origin in `LAB_ALLOWED_ORIGINS` (space-separated), e.g. a reverse
proxy's public name. Two LTI entries are cross-site by design and named in `CROSS_SITE`.

Without Origin and Sec-Fetch-Site a request is no browser's: every browser since 2020 sends one
of them on a POST, and Origin on every websocket handshake. What such a client may do is decided
by what it could borrow: a request that carries cookies could be an older browser riding the
user's cookies, so it must say where it comes from; one without cookies has no authority to
borrow and passes. So, entry by entry: a socket (the viewer's, the watch view's, the classroom's:
a browser's handshake always carries Origin), `POST /live` (a new room, documented for
scripts), `/recorded` (an upload anyone may make) and `/watch/change` (a loopback server's next
change) take a bare script; `POST /live/<code>/end` and `/device`, which act by the instructor's
cookie, take no cookie-bearing request that does not say where it comes from.
"""

from __future__ import annotations

from flask import Flask, Response, current_app, render_template, request
from flask.typing import ResponseReturnValue

from app import guard
from app.web.i18n import select_locale

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


def headers(policy: str) -> list[tuple[str, str]]:
    """The security headers every answer carries (gunicorn's own errors too: app.web.worker)."""
    return [
        ("Content-Security-Policy", policy),
        ("X-Content-Type-Options", "nosniff"),
        ("Referrer-Policy", "no-referrer"),
        ("Cross-Origin-Opener-Policy", "same-origin"),
    ]


def _add_headers(response: Response) -> Response:
    # A view may widen the policy for its own page on purpose (the LTI deep-linking return,
    # whose form posts to the platform); every other response gets the lab's, computed from
    # the configuration of the moment.
    policy = response.headers.get("Content-Security-Policy") or content_security_policy(
        current_app.config.get("FRAME_ANCESTORS")
    )
    for name, value in headers(policy):
        response.headers[name] = value
    return response


# Endpoints a browser reaches from another site on purpose, by name, and what stands in for
# the guard there. Nothing else is exempt.
CROSS_SITE = {
    # OIDC login initiation: the LMS's page posts (or redirects) the browser here from its site.
    "lti.login": "the target is checked to be this tool and pylti1p3 checks the issuer",
    # The launch: the LMS's page posts the signed id_token; pylti1p3 checks signature and nonce.
    "lti.launch": "pylti1p3 validates the id_token's signature, nonce, state and deployment",
}
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


def refusal() -> guard.Refusal | None:
    """Why the guard refuses the current request, or None when it may go on."""
    upgrade = request.headers.get("Upgrade", "").lower() == "websocket"
    if (request.method in SAFE_METHODS and not upgrade) or request.endpoint in CROSS_SITE:
        return None
    return guard.judge(
        request.headers.get("Origin"),
        request.headers.get("Sec-Fetch-Site"),
        [request.host],
        guard.setting(current_app.config.get("ALLOWED_ORIGINS")),
        browserless=not request.cookies,  # see the module docstring
    )


def _check_request() -> ResponseReturnValue | None:
    found = refusal()
    if found is None:
        return None
    current_app.logger.warning(
        "refused %s %s (%s): %s", request.method, request.path, found.reason, found.detail
    )
    return refused_page(403)


def refused_page(code: int, **values: object) -> tuple[str, int]:
    """The page a person sees for a request the lab will not take (403, 413), in their language."""
    lang = select_locale()
    return render_template("refused.html", lang=lang, code=code, **values), code


def init_app(app: Flask) -> None:
    """Install both hooks (they read the configuration on each request, so it can change);
    CSP holds the policy at start for views that derive their own from it."""
    app.config["CSP"] = content_security_policy(app.config.get("FRAME_ANCESTORS"))
    app.after_request(_add_headers)
    app.before_request(_check_request)
