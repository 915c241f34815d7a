"""The Code view's steps of an OAuth authorization (auth-scoped-tools): the HTTP requests the
SDK's `OAuthClientProvider` makes by itself once it is the auth of the client's HTTP client,
and the host's two handlers that send the user's browser to authorize and take the code back.

These steps carry no MCP message, so they are told apart by the request line of their frame.
The values (the server's URL, the client ID metadata document, the redirect URI) are the
lesson's own, read from its token request.
"""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

from app.engine.step import Step, Text, Trace

from .clientside import literal
from .texts import text

PROVIDER_PATHS = (
    "/.well-known/oauth-protected-resource",
    "/.well-known/oauth-authorization-server",
    "/.well-known/openid-configuration",
    "/token",
)
SERVER_URL = "http://127.0.0.1:3001/mcp"  # the lab's served server, as in the client snippets
CLIENT_ID = "https://agent.example.com/oauth/client.json"
REDIRECT_URI = "http://127.0.0.1:33418/callback"


def _request_line(step: Step) -> tuple[str, str]:
    """The method and target of the HTTP request a transport step's frame starts with."""
    line = (step.get("frame") or "").split("\r\n", 1)[0].split(" ")
    return (line[0], line[1]) if len(line) >= 2 else ("", "")


def _query(target: str, body: str = "") -> dict[str, str]:
    pairs = parse_qs(urlsplit(target).query or body)
    return {key: values[0] for key, values in pairs.items()}


def provider_code(resource: str, client_id: str, redirect_uri: str) -> str:
    return "\n".join(
        [
            f"server = {literal(resource)}",
            "auth = OAuthClientProvider(",
            "    server_url=server,",
            "    client_metadata=OAuthClientMetadata(",
            f"        redirect_uris=[{literal(redirect_uri)}],",
            "    ),",
            "    storage=tokens,  # your TokenStorage",
            "    redirect_handler=open_browser,",
            "    callback_handler=wait_for_code,",
            f"    client_metadata_url={literal(client_id)},",
            ")",
            "http = httpx2.AsyncClient(auth=auth)",
            "transport = streamable_http_client(server, http_client=http)",
            "async with Client(transport) as client:",
            "    ...",
        ]
    )


BROWSER_CODE = "\n".join(
    [
        "async def open_browser(url: str) -> None:",
        "    webbrowser.open(url)  # the user signs in and consents there",
        "",
        "",
        "async def wait_for_code() -> AuthorizationCodeResult:",
        "    query = await redirect_received()  # your page at redirect_uri",
        "    return AuthorizationCodeResult(**query)  # code, state (and iss)",
    ]
)


def _token_request(trace: Trace) -> dict[str, str]:
    """The fields of the lesson's first token request: its resource, client ID, redirect URI."""
    for step in trace:
        method, target = _request_line(step)
        if method == "POST" and urlsplit(target).path == "/token":
            body = (step.get("frame") or "").split("\r\n\r\n", 1)[-1]
            return _query("", body.split("HTTP/1.1 ", 1)[0])
    return {}


def auth_code(trace: Trace, step: Step) -> tuple[str, str, Text] | None:
    """(side, code, note) of an authorization step, or None for any other transport step."""
    method, target = _request_line(step)
    path = urlsplit(target).path
    if method == "GET" and path == "/authorize":
        return "host", BROWSER_CODE, text("code.auth-browser")
    if not any(path.startswith(known) for known in PROVIDER_PATHS):
        return None
    sent = _token_request(trace)
    code = provider_code(
        sent.get("resource", SERVER_URL),
        sent.get("client_id", CLIENT_ID),
        sent.get("redirect_uri", REDIRECT_URI),
    )
    return "client", code, text("code.auth-provider")
