"""One reader for the commands every socket is sent, and one way of refusing them.

Every socket of the lab (viewer, classroom, watch) reads its commands here: text frames only,
read by `app.bounded_json.read_json` (size, depth, syntax) within the app's WS_MAX_COMMAND,
and a JSON object whose "command" is a string. `answer` carries one command out with the
socket's own `apply` and turns anything refused into that socket's alert fragment, in the
user's language (the caller sets the locale): a frame that is binary, oversized, too deep, not
JSON or not an object; an unknown command; a value of the wrong type or out of range; and, as
a last resort, a bug (logged once). The socket then goes on serving: nothing here closes it,
and no refusal is an HTTP status or a traceback.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, TypeVar

from flask_babel import gettext

from app.bounded_json import JsonRefused, read_json
from app.web.channel import Oversized

T = TypeVar("T")
Command = dict[str, Any]


class Refused(Exception):
    """A command the lab will not carry out; its text (already translated) is shown."""


def too_large(size: int, limit: int) -> str:
    return str(
        gettext("Command refused: %(n)s bytes is over the limit of %(limit)s.", n=size, limit=limit)
    )


def _why(exc: JsonRefused, raw: str, limit: int) -> str:
    if exc.reason == "size":
        return too_large(len(raw.encode("utf-8", "replace")), limit)
    if exc.reason == "depth":
        return str(gettext("That command is nested too deeply to read."))
    if exc.reason == "type":
        return str(gettext("A command must be a JSON object."))
    if exc.reason == "binary":
        return str(gettext("Commands must be text frames."))
    return str(gettext("That command is not valid JSON."))


def read_command(raw: Any, limit: int) -> Command:
    """The command in one message from a socket (see the module docstring); raises Refused."""
    if isinstance(raw, Oversized):
        raise Refused(too_large(raw.size, limit))
    if not isinstance(raw, str):
        raise Refused(gettext("Commands must be text frames."))
    try:
        command: Command = read_json(raw, limit, want=dict)
    except JsonRefused as exc:
        raise Refused(_why(exc, raw, limit)) from None
    if not isinstance(command.get("command"), str):
        raise unknown(command.get("command"))
    return command


def unknown(name: Any) -> Refused:
    return Refused(gettext("Unknown command: %(name)s", name=str(name)[:40]))


def bad_value(command: Command, exc: Exception) -> str:
    return str(
        gettext(
            "Bad value for %(name)s: %(value)s",
            name=str(command.get("command"))[:40],
            value=str(exc)[:80],
        )
    )


def answer(
    raw: Any,
    limit: int,
    apply: Callable[[Command], list[T]],
    alert: Callable[[str], T],
    log: logging.Logger,
) -> list[T]:
    """Read one message and `apply` it; any refusal becomes `[alert(text)]`."""
    command: Command = {}
    try:
        command = read_command(raw, limit)
        return apply(command)
    except Refused as exc:
        text = str(exc)
    except (ValueError, TypeError, KeyError, OverflowError) as exc:
        text = bad_value(command, exc)
    except Exception:  # a bug of the lab's: say so, keep the socket open
        log.exception("command failed: %r", command)
        text = str(gettext("The server could not carry out that command."))
    return [alert(text)]
