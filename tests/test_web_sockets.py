"""Every socket the lab serves reads its commands the same way: hostile frames get an alert.

The viewer's, the classroom's and the watch page's sockets, opened by hand on the live server
(tests/rawws.py),
are sent what a hostile page or script might send: binary bytes, 10 MB of text, 4,000 `[`, a
JSON value that is not an object, an unknown command and values of the wrong type. Each gets
one alert on that socket, in the socket's language, never an HTTP status or a closed socket;
then an ordinary command still works.
"""

from __future__ import annotations

import html
import json
import re
import socket
import urllib.request
from collections.abc import Iterator

import pytest

from tests.classroom_client import start_room
from tests.rawws import abort, read_text, text_frame, upgrade
from tests.test_serving_sessions import initialize, served

HOSTILE: list[tuple[bytes, str]] = [
    (text_frame(b"\x00\xff\x10random", opcode=2), "Commands must be text frames."),
    (text_frame("x" * 10_000_000), "Command refused: 10000000 bytes is over the limit of 4096."),
    (text_frame("[" * 4000), "That command is nested too deeply to read."),
    (text_frame("[1, 2]"), "A command must be a JSON object."),
    (text_frame("{not json"), "That command is not valid JSON."),
    (text_frame('{"command": "fly"}'), "Unknown command: fly"),
    (text_frame('{"command": ["next"]}'), "Unknown command: ['next']"),
    (text_frame('{"command": "goto", "step": "x"}'), "Bad value for goto"),
    (text_frame('{"command": "goto", "step": [1]}'), "Bad value for goto"),
]


def warm(base: str) -> None:
    """Wait for the server's library (a cold server validates it first, seconds when busy)."""
    with urllib.request.urlopen(base + "/scenario/pagination", timeout=120) as page:
        assert page.status == 200


def alert_text(message: str) -> str | None:
    found = re.search(r'<div id="alert"[^>]*>\s*<p>(.*?)</p>', message, re.S)
    if found is None:
        return None
    return html.unescape(re.sub(r"<[^>]+>", "", found.group(1))).replace("⚠", "").strip()


def next_alert(sock: socket.socket) -> str:
    for _ in range(20):
        said = alert_text(read_text(sock))
        if said is not None:
            return said
    raise AssertionError("no alert came")


@pytest.fixture
def viewer(live_server: str) -> Iterator[socket.socket]:
    warm(live_server)
    sock, status = upgrade(live_server, "/ws/scenario/pagination")
    assert status == 101
    read_text(sock)  # the opening fragment
    yield sock
    abort(sock)


@pytest.fixture
def student(live_server: str) -> Iterator[socket.socket]:
    warm(live_server)
    code, _cookie = start_room(live_server)
    sock, status = upgrade(live_server, f"/live/{code}/ws")
    assert status == 101
    read_text(sock)  # the room's state
    yield sock
    abort(sock)


@pytest.fixture
def watch(live_server: str) -> Iterator[socket.socket]:
    with served("pagination", "files") as (base, _endpoint):
        initialize(base)
        sock, status = upgrade(live_server, f"/ws/watch?server={base}")
        assert status == 101
        while 'id="watch-lab"' not in read_text(sock):  # the sessions, then the session drawn
            pass
        yield sock
        abort(sock)


@pytest.mark.parametrize("name", ["viewer", "student", "watch"])
def test_every_socket_answers_hostile_frames_with_an_alert_and_keeps_serving(name, request):
    sock = request.getfixturevalue(name)
    for frame, said in HOSTILE:
        sock.sendall(frame)
        assert next_alert(sock).startswith(said), said
    sock.sendall(text_frame(json.dumps({"command": "view", "view": "output"})))
    assert 'data-view="output"' in read_text(sock)


def test_a_refusal_is_said_in_the_sockets_language(live_server: str):
    warm(live_server)
    for path in ("/ws/scenario/pagination?lang=ru", f"/live/{start_room(live_server)[0]}/ws"):
        sock, status = upgrade(live_server, path)
        try:
            assert status == 101
            read_text(sock)
            if path.startswith("/live"):
                sock.sendall(text_frame('{"command": "language", "lang": "ru"}'))
                read_text(sock)
            sock.sendall(text_frame(b"\x01", opcode=2))
            assert next_alert(sock) == "Команды должны приходить текстовыми кадрами."
        finally:
            abort(sock)
