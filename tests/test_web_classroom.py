"""The live classroom over HTTP and its websocket, as the contract in issue 10 writes it.

HTTP through Flask's test client; sockets against the lab served from a thread (the
`live_server` fixture), with simple-websocket clients playing the instructor and students.
"""

from __future__ import annotations

import contextlib
import csv as csv_module
import json
import re
import socket
import time
import urllib.request

from flask import Flask
from flask.testing import FlaskClient
from wsproto import ConnectionType
from wsproto.connection import Connection
from wsproto.events import TextMessage

from app.web.classroom import frames
from tests.classroom_client import LiveSocket, join, start_room


def create(client: FlaskClient, **form: str):
    data = {"scenario": "pagination", "version": "2025-06-18", "transport": "stdio"} | form
    return client.post("/live", data=data)


def test_post_live_creates_a_room_and_makes_the_browser_its_instructor(client: FlaskClient):
    answer = create(client)
    assert answer.status_code == 303
    code = re.fullmatch(r"/live/([A-Z2-9]{6})/present", answer.headers["Location"]).group(1)
    cookie = answer.headers["Set-Cookie"]
    assert cookie.startswith(f"mcp-lab-teach-{code}=")
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie and f"Path=/live/{code}" in cookie
    page = client.get(f"/live/{code}/present").get_data(as_text=True)
    assert f">{code}</p>" in page
    assert re.search(r'<svg role="img" viewBox="[^"]+" class="qr"><title>', page)
    assert re.search(r'id="btn-poll-open"[^>]*>Open poll <kbd', page)
    assert re.search(r'id="btn-reveal"[^>]*>Reveal answer <kbd', page)
    assert re.search(r'data-students="0"', page)
    assert 'id="counter"' in page and "Step 1 of" in page


def test_join_form_takes_codes_typed_loosely_and_says_when_one_is_unknown(client: FlaskClient):
    code = create(client).headers["Location"].split("/")[2]
    student = Flask.test_client(client.application)
    form = student.get("/join").get_data(as_text=True)
    assert 'name="code"' in form and 'action="/join"' in form
    typed = f"{code[:3].lower()} {code[3:].lower()}"
    answer = student.get("/join", query_string={"code": typed})
    assert answer.status_code == 302 and answer.headers["Location"] == f"/live/{code}"
    unknown = student.get("/join", query_string={"code": "zz zz zz"})
    assert unknown.status_code == 404
    assert "No room has the code zz zz zz" in unknown.get_data(as_text=True)
    assert 'aria-invalid="true"' in unknown.get_data(as_text=True)


def test_students_never_see_the_instructor_screen_or_secret(client: FlaskClient):
    answer = create(client)
    code = answer.headers["Location"].split("/")[2]
    token = answer.headers["Set-Cookie"].split(";")[0].split("=", 1)[1]
    student = Flask.test_client(client.application)
    assert student.get(f"/live/{code}/present").status_code == 403
    assert student.get(f"/live/{code}/results.csv").status_code == 403
    own_page = {"Sec-Fetch-Site": "same-origin"}  # past the guard: the room itself refuses
    assert student.post(f"/live/{code}/end", headers=own_page).status_code == 403
    page = student.get(f"/live/{code}")
    assert page.status_code == 200 and token not in page.get_data(as_text=True)
    assert "Step 1 of" in page.get_data(as_text=True)
    assert all(token not in h for h in page.headers.getlist("Set-Cookie"))


def test_a_one_time_link_adds_a_second_instructor_device(client: FlaskClient):
    code = create(client).headers["Location"].split("/")[2]
    own_page = {"Sec-Fetch-Site": "same-origin"}  # the present page's form, as a browser sends it
    minted = client.post(f"/live/{code}/device", headers=own_page).get_data(as_text=True)
    link = re.search(r'id="device-link" class="device-link" href="([^"]+)"', minted).group(1)
    path = link.replace("http://localhost", "").replace("&amp;", "&")
    tablet = Flask.test_client(client.application)
    used = tablet.get(path)
    assert used.status_code == 303 and "HttpOnly" in used.headers["Set-Cookie"]
    assert tablet.get(f"/live/{code}/present").status_code == 200
    assert client.get(f"/live/{code}/present").status_code == 200  # the first device still is
    again = Flask.test_client(client.application)
    assert again.get(path).status_code == 403


def test_frames_are_what_a_websocket_client_decodes() -> None:
    for text in ("hi", "é" * 100, "x" * 70000):
        client = Connection(ConnectionType.CLIENT)
        client.receive_data(frames.text_frame(text))
        events = list(client.events())
        assert "".join(e.data for e in events if isinstance(e, TextMessage)) == text
        assert all(e.message_finished for e in events if isinstance(e, TextMessage))


def test_students_follow_the_instructor_and_cannot_drive(live_server: str):
    code, cookie = start_room(live_server)
    teacher = LiveSocket(live_server, code, cookie)
    assert teacher.opening()[0] == "full"
    ann, bob = LiveSocket(live_server, code), LiveSocket(live_server, code)
    assert ann.receive()[:2] == ("full", 0) and bob.receive()[:2] == ("full", 0)
    for step in (1, 2, 3):
        teacher.send("next")
        for student in (ann, bob):
            mode, seq, message = student.receive()
            assert (mode, seq) == ("delta", step)
            assert f"Step {step + 1} of" in message
    for forged in (
        {"command": "next"},
        {"command": "goto", "step": 9},
        {"command": "poll_open"},
        {"command": "reveal"},
        {"command": "end"},
        {"command": "version", "version": "2024-11-05"},
    ):
        bob.send(**forged)
        mode, seq, message = bob.receive()
        assert mode == "local" and 'id="alert"' in message
    assert ann.quiet()  # nothing was broadcast: the room did not move
    late = LiveSocket(live_server, code)
    mode, seq, message = late.receive()
    assert (mode, seq) == ("full", 3) and "Step 4 of" in message
    # A step's delta is much less than the whole state: the log is appended to, not sent
    # again, and the stage sends the parts that moved, not its two pictures.
    last = ann.seen[-1][2]
    assert len(last) < len(message) * 0.2
    append = 'hx-swap-oob="beforeend:#log"'
    assert append in last and append not in message and 'id="panel-overview"' not in last
    for s in (teacher, ann, bob, late):
        s.close()


def test_a_student_browses_back_and_catches_up(live_server: str):
    code, cookie = start_room(live_server)
    teacher = LiveSocket(live_server, code, cookie)
    ann = LiveSocket(live_server, code)
    teacher.receive(), ann.receive()
    for _ in range(3):
        teacher.send("next")
        ann.receive()
    ann.send("prev")
    mode, _, message = ann.receive()
    assert mode == "local" and "Step 3 of" in message and "btn-catchup" in message
    teacher.send("next")
    mode, seq, message = ann.until('data-mode="notice"').join(["", ""]), None, None
    notice = ann.seen[-1]
    assert notice[0] == "notice" and notice[1] == 4 and "class is at step 5" in notice[2]
    assert "Step 5 of" not in notice[2]
    ann.send("catchup")
    mode, seq, message = ann.receive()
    assert (mode, seq) == ("full", 4) and "Step 5 of" in message
    teacher.send("next")
    assert ann.receive()[:2] == ("delta", 5)


def test_a_poll_counts_changeable_answers_and_reveals_to_everyone(live_server: str):
    code, cookie = start_room(live_server, scenario="pagination")
    teacher = LiveSocket(live_server, code, cookie)
    students = [LiveSocket(live_server, code, join(live_server, code)) for _ in range(3)]
    for s in (teacher, *students):
        s.receive()
    message = ""
    for _ in range(40):  # step until a question
        teacher.send("next")
        messages = [s.receive()[2] for s in students]  # students get room frames only
        message = messages[0]
        if 'class="checkpoint live-poll" data-state="idle"' in message:
            break
    else:
        raise AssertionError("pagination has no question")
    students[0].send("answer", choice=0)
    assert "not open" in students[0].receive()[2]
    teacher.send("poll_open")
    assert 'data-state="open"' in teacher.until('data-state="open"')
    for s in students:
        assert 'data-state="open"' in s.receive()[2]
    for s, choice in zip(students, (0, 1, 1), strict=True):
        s.send("answer", choice=choice)
        assert "Your answer is in" in s.receive()[2]
    students[0].send("answer", choice=1)
    students[0].receive()
    counts = {}
    deadline = time.monotonic() + 30
    while not (counts.get(0) == 0 and counts.get(1) == 3) and time.monotonic() < deadline:
        for choice, n in re.findall(r'data-choice="(\d)" data-count="(\d+)"', teacher.receive()[2]):
            counts[int(choice)] = int(n)
    assert counts.get(0) == 0 and counts.get(1) == 3
    teacher.send("reveal")
    for s in students:
        message = s.until('data-state="revealed"')
        assert 'id="feedback"' in message and "The answer:" in message
    csv = f"{live_server}/live/{code}/results.csv"
    import urllib.request

    request = urllib.request.Request(csv, headers={"Cookie": cookie})
    rows = urllib.request.urlopen(request).read().decode().splitlines()
    head = "poll,version,transport,step,question,right_at_first_answer,choice,text,"
    assert rows[0] == head + "most_chosen_wrong,votes,correct"
    table = list(csv_module.reader(rows[1:]))
    right = next(r for r in table if r[10] == "yes")
    wrong = next(r for r in table if r[9] == "3")
    # First answers: one student chose the right answer first, then changed it to the
    # answer the other two gave, the most chosen wrong one, which the CSV marks.
    assert right[9] == "0" and right[5] == "0.3333" and wrong[8] == "yes"
    request = urllib.request.Request(f"{live_server}/live/{code}/results.json")
    request.add_header("Cookie", cookie)
    (question,) = json.loads(urllib.request.urlopen(request).read())["questions"]
    assert question["counts"][int(wrong[6]) - 1] == 3 and sum(question["counts"]) == 3
    assert question == {
        "step": int(right[3]),
        "counts": question["counts"],
        "right": int(right[6]) - 1,
        "rightShare": 0.3333,
        "topWrong": int(wrong[6]) - 1,
    }


def test_a_follower_that_stops_reading_is_dropped_and_others_keep_up(live_server: str):
    # the longest lesson, jumping from its first step to its last and back: a step sends only
    # what changed, so it takes the whole log going and coming to fill the kernel's buffers
    code, cookie = start_room(live_server, "list-changed-during-refresh", transport="http")
    teacher = LiveSocket(live_server, code, cookie)
    fast = LiveSocket(live_server, code)
    teacher.receive(), fast.receive()
    stuck = socket.socket()
    stuck.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    stuck.connect(("127.0.0.1", int(live_server.rsplit(":", 1)[1])))
    stuck.sendall(
        f"GET /live/{code}/ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n".encode()
    )
    stuck.settimeout(30)
    head = b""
    while b"\r\n\r\n" not in head:  # the handshake is answered: it is one of the room
        head += stuck.recv(1)
    assert head.startswith(b"HTTP/1.1 101")
    steps = 240  # more bytes than the kernel's socket buffers absorb (a jump is ~17 KiB)
    for step in range(1, steps):
        teacher.send("goto", step=40 if step % 2 else 0)
        assert fast.receive()[1] == step
    # The stuck socket's queue overflowed: it was dropped (shut down), the others kept going.
    stuck.settimeout(5)
    received = b""
    with contextlib.suppress(ConnectionResetError):  # dropped with a reset: its buffer freed
        while chunk := stuck.recv(1 << 20):
            received += chunk
    assert received.count(b'data-mode="delta"') < steps - 1  # it never got every step
    stuck.close()


def test_the_present_page_warns_when_phones_cannot_reach_the_join_address(client: FlaskClient):
    page = client.get(create(client).headers["Location"]).get_data(as_text=True)
    assert 'id="reach-note"' in page and "--host 0.0.0.0" in page


def test_lab_public_url_is_the_address_in_the_join_line_link_and_qr():
    from app.web.factory import create_app

    app = create_app({"TESTING": True, "PUBLIC_URL": "http://192.168.1.20:5000/"})
    client = app.test_client()
    page = client.get(create(client).headers["Location"]).get_data(as_text=True)
    code = re.search(r'id="room-code"[^>]*>(\w{6})<', page).group(1)
    assert f'href="http://192.168.1.20:5000/live/{code}"' in page
    assert "Join at http://192.168.1.20:5000/join with the code" in page
    assert 'id="reach-note"' not in page


def test_a_paced_room_gates_students_at_questions_until_everyone_is_brought_back(
    live_server: str,
):
    code, cookie = start_room(live_server, scenario="pagination")
    teacher = LiveSocket(live_server, code, cookie)
    with urllib.request.urlopen(f"{live_server}/live/{code}") as page:  # as a student joins
        joined = next(c for c in page.headers.get_all("Set-Cookie") if "mcp-lab-student" in c)
    student = LiveSocket(live_server, code, joined.split(";")[0])
    teacher.receive(), student.receive()
    student.send("next")
    assert "has not got there yet" in student.until('role="alert"')
    teacher.send("pace")
    assert 'data-paced="1"' in student.until("live-bar")
    refused = ""
    for _ in range(30):  # on their own, up to the first question and no further
        student.send("next")
        mode, _seq, message = student.receive()
        if mode == "local" and 'role="alert"' in message:
            refused = message
            break
    assert "Answer the question first" in refused
    assert 'data-state="self"' in student.seen[-2][2]  # the question, open to them alone
    student.send("answer", choice=1)
    assert 'data-self="wrong"' in student.until("vote-status")
    student.send("answer", choice=0)
    assert 'data-self="right"' in student.until("vote-status")
    student.send("next")
    assert 'data-state="self"' not in student.receive()[2]
    # The class results count answers given at one's own pace: this one was wrong first.
    request = urllib.request.Request(f"{live_server}/live/{code}/results.json")
    request.add_header("Cookie", cookie)
    (question,) = json.loads(urllib.request.urlopen(request).read())["questions"]
    assert question["rightShare"] == 0.0 and question["counts"][0] == 1
    teacher.send("gather", step=2)
    notice = student.until("live-bar")
    assert 'data-gathered="1"' in notice and 'data-paced="0"' in notice
    student.send("catchup")  # what the page does when it sees data-gathered grow
    mode, _seq, message = student.receive()
    assert mode == "full" and "Step 3 of" in message
    student.send("next")
    assert "has not got there yet" in student.until('role="alert"')
    for s in (teacher, student):
        s.close()


def test_a_followers_page_gets_the_overview_picture_it_displays_and_the_room_on_a_switch(
    live_server: str,
):
    code, cookie = start_room(live_server, "pagination")
    teacher = LiveSocket(live_server, code, cookie)
    phone = LiveSocket(live_server, code, query="?shape=tall")
    teacher.receive(), phone.receive()
    teacher.send("next")
    _mode, seq, message = phone.receive()
    assert 'id="ov-t-m"' in message and 'id="ov-w-' not in message
    phone.send("shape", shape="wide")  # turned: the wide picture shows, and was not kept
    mode, again, message = phone.receive()
    assert (mode, again) == ("full", seq) and 'id="panel-overview"' in message
    teacher.send("next")
    message = phone.until('data-mode="delta"')
    assert 'id="ov-w-m"' in message and 'id="ov-t-' not in message
    for s in (teacher, phone):
        s.close()
