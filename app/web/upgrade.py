"""Websocket routes: the handshake that turns an upgrade request into a `Channel`, and the
registration that runs a handler on it.

`route(bp, rule)` registers `handler(channel, **view_args)` for websocket upgrades at `rule`,
and puts the channel under the app's heartbeat (app.web.heartbeat).
The Origin check has run before (app.web.security, on every upgrade). The handshake accepts no
extension and no subprotocol: the channel writes its own frames (see app.web.channel), so
permessage-deflate, which a browser always offers, is declined. After the handler returns (or
its peer went away, or it failed), the channel is closed with a close frame; a handler's bug
is logged once and closes the socket with 1011, so nothing (no HTTP 500, no traceback page)
is ever written into an open websocket.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from flask import Blueprint, Response, abort, current_app, request
from wsproto.utilities import generate_accept_token

from app.web.channel import Channel, Closed, Settings
from app.web.heartbeat import Heartbeat

Handler = Callable[..., None]


def settings(config: Any) -> Settings:
    """The channel settings of an app's configuration: one shared object, not one per socket."""
    return _shared(
        float(config.get("WS_PING_INTERVAL", 25)),
        float(config.get("WS_SEND_TIMEOUT", 10)),
        int(config.get("WS_QUEUE", config.get("LIVE_QUEUE", 16))),
        int(config.get("WS_MAX_COMMAND", 4096)),
    )


@functools.lru_cache(maxsize=8)
def _shared(ping_interval: float, send_timeout: float, queue: int, max_command: int) -> Settings:
    return Settings(ping_interval, send_timeout, queue, max_command)


def accept(environ: dict[str, Any], how: Settings) -> Channel:
    """Answer the upgrade with 101 and open the channel; a request that is not a valid
    RFC 6455 upgrade gets a plain 400 (nothing was switched yet)."""
    sock = environ.get("gunicorn.socket") or environ.get("werkzeug.socket")
    key = environ.get("HTTP_SEC_WEBSOCKET_KEY", "")
    if sock is None or environ.get("HTTP_SEC_WEBSOCKET_VERSION") != "13" or not key:
        abort(400)
    token = generate_accept_token(key.encode("latin-1")).decode()
    sock.sendall(
        (
            "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Accept: {token}\r\n\r\n"
        ).encode()
    )
    return Channel(sock, how)


class _Done(Response):
    """What the view returns once the socket is over, as flask-sock ends a websocket request:
    gunicorn must not write a response (StopIteration tells it the connection is done);
    werkzeug's development server writes one into the closed socket, harmlessly."""

    gunicorn = False

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self.gunicorn:
            raise StopIteration()
        return super().__call__(*args, **kwargs)


def route(bp: Blueprint, rule: str) -> Callable[[Handler], Handler]:
    """Register `handler(channel, **view_args)` as the websocket at `rule` on `bp`."""

    def register(handler: Handler) -> Handler:
        def view(**view_args: Any) -> Response:
            how = settings(current_app.config)
            channel = accept(request.environ, how)
            beating = current_app.extensions.get("heartbeat")
            if beating is None:  # one per app and process, started by its first socket
                beating = current_app.extensions["heartbeat"] = Heartbeat(how.ping_interval)
            beating.watch(channel)
            try:
                handler(channel, **view_args)
            except Closed:
                pass
            except Exception:  # a bug: say so once in the log, close the socket as failed
                current_app.logger.exception("websocket %s failed", request.path)
                channel.code = 1011
            finally:
                channel.close()
            done = _Done()
            done.gunicorn = "gunicorn.socket" in request.environ
            return done

        view.__name__ = handler.__name__
        bp.add_url_rule(rule, view_func=view, websocket=True)
        return handler

    return register
