"""The serving model under the inputs that broke it: `mcp-lab serve` (gunicorn gevent) for real.

Each test is a failure measured against the old threaded server (issue 8): half-sent request
heads and a few hundred open sockets froze every page, a client vanishing mid-send left two
tracebacks and a 500, `?step=999999` broke next and play, deeply nested JSON dumped a
traceback, and a socket that never read was never reaped. Two servers run as subprocesses on
free 127.0.0.1 ports: `lab` with the default heartbeat and a 2 s send deadline, and `brisk`
with a 1 s heartbeat, for the reaping test. Their logs are read back for tracebacks.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.web.factory import create_app
from app.web.render import open_viewer
from tests.conftest import free_port
from tests.rawws import abort, read_text, text_frame, upgrade
from tests.test_web_fuzz import frames
from tests.test_web_pages import answers

ROOT = Path(__file__).resolve().parent.parent


@dataclass
class Served:
    url: str
    log: Path
    pid: int = 0

    def worker_rss_kib(self) -> int:
        """Resident memory of the gunicorn worker (the master's only child)."""
        [child] = Path(f"/proc/{self.pid}/task/{self.pid}/children").read_text().split()
        status = Path(f"/proc/{child}/status").read_text()
        return int(re.search(r"VmRSS:\s+(\d+)", status).group(1))  # type: ignore[union-attr]

    def text(self) -> str:
        return self.log.read_text(errors="replace")


def get(url: str, timeout: float = 10) -> tuple[int, float]:
    """Status and seconds taken for a page."""
    started = time.monotonic()
    with urllib.request.urlopen(url, timeout=timeout) as response:
        response.read()
        return response.status, time.monotonic() - started


def start(
    tmp: Path, name: str, session: bool = False, **env: str
) -> tuple[subprocess.Popen[bytes], Served]:
    """`mcp-lab serve` on a free port, logging to tmp/<name>.log; in a session of its own (as
    a terminal's foreground job is) when `session`."""
    port = free_port()
    log = tmp / f"{name}.log"
    with log.open("wb") as out:  # the child keeps its own copy of the descriptor
        process = subprocess.Popen(
            [sys.executable, "-m", "app.cli", "serve", "--port", str(port)],
            cwd=ROOT,
            env=os.environ | env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=session,
        )
    return process, Served(f"http://127.0.0.1:{port}", log, process.pid)


def ready(served: Served, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"mcp-lab serve exited:\n{served.text()}")
        try:
            get(served.url + "/", timeout=5)
            return
        except OSError:
            time.sleep(0.2)
    pytest.fail(f"mcp-lab serve did not answer:\n{served.text()}")


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Served]]:
    tmp = tmp_path_factory.mktemp("serving")
    started = {
        "lab": start(tmp, "lab", LAB_WS_SEND_TIMEOUT="2"),
        "brisk": start(tmp, "brisk", LAB_WS_PING_INTERVAL="1", LAB_WS_SEND_TIMEOUT="1"),
    }
    try:
        for process, served in started.values():
            ready(served, process)
        yield {name: served for name, (_, served) in started.items()}
    finally:
        for process, _ in started.values():
            process.terminate()
        for process, _ in started.values():
            process.wait(timeout=20)


@pytest.fixture
def lab(servers: dict[str, Served]) -> Served:
    return servers["lab"]


def clean(served: Served) -> None:
    log = served.text()
    assert "Traceback" not in log, log[-4000:]
    assert "Bad file descriptor" not in log
    assert not re.search(r'" 500 ', log), log[-4000:]


def closed_by_server(sock: socket.socket, within: float) -> bool:
    """Whether the server ends the connection within `within` seconds (reading what it sent)."""
    deadline = time.monotonic() + within
    sock.settimeout(0.5)
    while time.monotonic() < deadline:
        try:
            if not sock.recv(65536):
                return True
        except TimeoutError:
            continue
        except ConnectionResetError:
            return True
    return False


def shown_status(sock: socket.socket) -> dict[str, int]:
    """data-step of the next #status fragment (other fragments are skipped)."""
    while True:
        found = re.search(r'<div id="status"[^>]*>', read_text(sock))
        if found:
            attrs = dict(re.findall(r'data-(step)="(\d+)"', found.group(0)))
            return {k: int(v) for k, v in attrs.items()}


TCP_CLOSE, TCP_CLOSE_WAIT = 7, 8  # linux/tcp_states.h


def hung_up_on(sock: socket.socket, within: float) -> bool:
    """Whether the server closes or resets the connection in time, seen without reading it
    (reading would make a client that never reads into one that does)."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        state = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 1)[0]
        if state in (TCP_CLOSE, TCP_CLOSE_WAIT):
            return True
        time.sleep(0.1)
    return False


def command(name: str, **params: object) -> bytes:
    return text_frame(json.dumps({"command": name, **params}))


def test_the_first_line_says_where_the_lab_listens_and_who_can_reach_it(lab):
    first = lab.text().splitlines()[0]
    assert first.startswith(f"MCP Discovery Lab on {lab.url}  (gunicorn gevent, 1 process;")
    assert "only this machine can reach it" in first


def test_half_sent_request_heads_do_not_block_pages_and_are_closed(lab):
    lorises = []
    host, port = lab.url.removeprefix("http://").split(":")
    for _ in range(300):
        s = socket.create_connection((host, int(port)))
        s.sendall(b"GET / HTTP/1.1\r\nHost: lab\r\nX-Slow: ")  # and never the rest
        lorises.append(s)
    try:
        status, seconds = get(lab.url + "/scenario/pagination", timeout=30)
        assert status == 200
        assert seconds < 10  # the old server answered none while the heads stayed open
        # gunicorn gives a request head HEAD_TIMEOUT (5 s) to arrive, then hangs up.
        assert all(closed_by_server(s, within=15) for s in lorises)
    finally:
        for s in lorises:
            s.close()
    clean(lab)


def test_three_hundred_open_viewer_sockets_and_pages_and_socket_301_still_answer(lab):
    sockets = []
    try:
        for _ in range(300):
            s, status = upgrade(lab.url, "/ws/scenario/pagination")
            assert status == 101
            assert 'id="alert"' in read_text(s)  # the viewer's first fragment says it serves
            sockets.append(s)
        # Answered at all is the point (the old server's 256 threads were all held by sockets
        # and it never answered); how fast depends on the machine's load.
        status, _ = get(lab.url + "/", timeout=30)
        assert status == 200
        extra, status = upgrade(lab.url, "/ws/scenario/cache")
        sockets.append(extra)
        assert status == 101
        read_text(extra)  # the session fragment
        extra.sendall(command("next"))
        assert shown_status(extra)["step"] == 1
    finally:
        for s in sockets:
            abort(s)
    clean(lab)


def test_a_client_that_vanishes_while_the_server_sends_leaves_no_traceback(lab):
    for n in range(20):
        s, status = upgrade(lab.url, "/ws/scenario/list-changed-during-refresh?step=30")
        assert status == 101
        for lang in ("ru", "zh", "en", "ru"):
            s.sendall(command("language", lang=lang))
        if n % 2:
            read_text(s)
        abort(s)
    time.sleep(1)
    assert get(lab.url + "/")[0] == 200
    clean(lab)


@pytest.mark.parametrize("step", ["999999", "1" + "0" * 26])
def test_a_step_past_the_end_in_the_socket_url_means_the_last_step(lab, step):
    app = create_app({"TESTING": True})
    past = answers(app, "pagination")  # questions answered
    pagination = app.extensions["lab"].scenario("pagination")
    v = open_viewer(pagination, {}, "en")  # what a URL without version or transport opens
    last = len(app.extensions["lab"].trace("pagination", v.version, v.transport)) - 1
    s, status = upgrade(lab.url, f"/ws/scenario/pagination?step={step}&{past}")
    try:
        assert status == 101
        assert shown_status(s)["step"] == last  # the socket's first fragments show where
        s.sendall(command("prev"))
        assert shown_status(s)["step"] == last - 1
        s.sendall(command("next"))
        assert shown_status(s)["step"] == last
        s.sendall(command("play"))  # from the end, play starts over
        assert shown_status(s)["step"] == 0
    finally:
        abort(s)
    clean(lab)


def test_deeply_nested_json_gets_a_readable_error_and_the_socket_goes_on(lab):
    s, status = upgrade(lab.url, "/ws/scenario/pagination")
    try:
        assert status == 101
        read_text(s)
        s.sendall(text_frame("[" * 3000))
        assert "nested too deeply" in read_text(s)
        s.sendall(text_frame('{"command": "goto", "step": ' + "[" * 3000))
        assert "nested too deeply" in read_text(s)
        s.sendall(command("next"))
        assert shown_status(s)["step"] == 1
    finally:
        abort(s)
    clean(lab)


def test_a_socket_that_never_reads_is_closed_when_a_send_cannot_finish(lab):
    s, status = upgrade(lab.url, "/ws/scenario/list-changed-during-refresh?step=30", rcvbuf=4096)
    assert status == 101
    s.settimeout(5)
    try:
        for n in range(200):  # each language switch sends the whole step again
            s.sendall(command("language", lang=("ru", "zh", "en")[n % 3]))
    except OSError:
        pass  # the server gave up on us already
    assert hung_up_on(s, within=20)
    abort(s)
    assert get(lab.url + "/")[0] == 200
    clean(lab)


def test_a_socket_that_answers_no_ping_is_reaped(servers):
    brisk = servers["brisk"]
    silent, status = upgrade(brisk.url, "/ws/scenario/pagination")
    assert status == 101
    polite, status = upgrade(brisk.url, "/ws/scenario/pagination")
    assert status == 101
    seen: list[str] = []

    def listen() -> None:  # a browser's socket: reads all the time, answering every ping
        with contextlib.suppress(OSError):
            while True:
                seen.append(read_text(polite))

    listener = threading.Thread(target=listen, daemon=True)
    listener.start()
    try:
        # Pings go out every second; one unanswered interval later the silent one is closed.
        assert hung_up_on(silent, within=10)
        time.sleep(3)  # several more pings, each answered: the polite one stays
        polite.sendall(command("next"))
        deadline = time.monotonic() + 10
        while not any('data-step="1"' in text for text in seen) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert any('data-step="1"' in text for text in seen)
    finally:
        abort(silent)
        abort(polite)
        listener.join(timeout=5)
    clean(brisk)


def sync(sock: socket.socket, step: int) -> None:
    """Read everything up to the answer to a goto `step`: the socket still works."""
    sock.sendall(command("goto", step=step))
    for _ in range(50):  # a refused goto answers with the old step: fail, do not spin
        if shown_status(sock).get("step") == step:
            return
    raise AssertionError(f"goto {step} was never shown")


@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))
# Frames past simple-websocket's 64 KiB hard limit close the socket (1009) by design.
@given(burst=st.lists(frames.filter(lambda f: len(f) < 60000), min_size=1, max_size=6))
def test_random_frames_against_the_server_each_get_an_answer_and_the_socket_lives(lab, burst):
    s, status = upgrade(lab.url, "/ws/scenario/pagination")
    try:
        assert status == 101
        read_text(s)
        for frame in burst:
            s.sendall(text_frame(frame, opcode=2 if isinstance(frame, bytes) else 1))
        sync(s, 5)  # before pagination's first question, which would stop a goto past it
        sync(s, 2)
    finally:
        abort(s)


def test_memory_stays_flat_under_a_stream_of_bad_frames(lab):
    bad = [
        b"\x00\xff" * 50,
        "[" * 3000,
        "x" * 5000,
        json.dumps({"command": "goto", "step": 10**26}),
        json.dumps({"command": "answer", "choice": "zero"}),
        json.dumps({"command": "language", "lang": "<script>"}),
        "\u202e\ud7ff\U0001f600",
        json.dumps({"command": "speed", "speed": 1e308}),
    ]
    s, status = upgrade(lab.url, "/ws/scenario/pagination")
    try:
        assert status == 101
        read_text(s)

        def round_of(n: int) -> int:
            for i in range(n):
                frame = bad[i % len(bad)]
                s.sendall(text_frame(frame, opcode=2 if isinstance(frame, bytes) else 1))
            sync(s, 3)
            return lab.worker_rss_kib()

        round_of(200)  # warm-up: caches and allocator pools fill once
        first = round_of(400)
        second = round_of(400)
        assert second - first < 4096, (first, second)  # KiB: no growth per bad frame
    finally:
        abort(s)
    clean(lab)


@pytest.mark.parametrize("stop", ["sigterm", "ctrl-c"])
def test_a_stop_ends_the_quiet_worker_at_once_and_says_only_that_it_stopped(tmp_path, stop):
    # The worker's loop waits 10 s between its words to the arbiter (app.web.worker); a stop
    # must cut that wait short. If it did not, the arbiter would kill the worker when its 5 s
    # of grace ran out, and say so in the log instead of the worker's own exit. Ctrl-C reaches
    # the worker from the terminal and from the arbiter: one exit, and no traceback either way.
    process, served = start(tmp_path, "stopping", session=True)
    try:
        ready(served, process)
        time.sleep(1.5)  # past the loop's first second: the worker waits in its long wait
        if stop == "sigterm":
            process.terminate()
        else:  # the terminal signals its foreground process group
            os.killpg(process.pid, signal.SIGINT)
        process.wait(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
    log = served.text()
    assert "Worker exiting" in log and "Shutting down: Master" in log, log
    assert "SIGKILL" not in log and "Traceback" not in log and "Exception" not in log, log
