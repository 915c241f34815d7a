"""One vote per student: only a socket bound to a student of the room (the cookie its page
gave) votes, so sockets opened without one, or with an id the room never issued, cast nothing,
and the instructor's counts and the CSV hold the real students' votes only."""

from __future__ import annotations

import re
import time
import urllib.request

from tests.classroom_client import LiveSocket, join, start_room


def _to_question(teacher: LiveSocket, followers: list[LiveSocket]) -> None:
    for _ in range(40):
        teacher.send("next")
        messages = [s.receive()[2] for s in followers]
        if 'class="checkpoint live-poll" data-state="idle"' in messages[0]:
            return
    raise AssertionError("pagination has no question")


def _counts(message: str) -> dict[int, int]:
    return {
        int(c): int(n) for c, n in re.findall(r'data-choice="(\d)" data-count="(\d+)"', message)
    }


def test_sockets_without_a_student_cookie_cast_no_vote(live_server: str):
    code, cookie = start_room(live_server)
    teacher = LiveSocket(live_server, code, cookie)
    students = [LiveSocket(live_server, code, join(live_server, code)) for _ in range(3)]
    anonymous = [LiveSocket(live_server, code) for _ in range(5)]
    forged = [LiveSocket(live_server, code, f"mcp-lab-student={n:016x}") for n in (1, 0xDEADBEEF)]
    followers = [*students, *anonymous, *forged]
    for s in (teacher, *followers):
        assert s.receive()[0] == "full"
    _to_question(teacher, followers)
    teacher.send("poll_open")
    teacher.until('data-state="open"')
    for s in followers:
        s.until('data-state="open"')
    for s in [*anonymous, *forged]:
        s.send("answer", choice=1)
        assert "Only students who joined the room vote" in s.until('role="alert"')
    for s in students:
        s.send("answer", choice=1)
        assert "Your answer is in" in s.until("vote-status")
    counts = _counts(teacher.until('data-choice="1" data-count="3"'))
    assert sum(counts.values()) == 3
    teacher.send("poll_close")
    teacher.until('data-state="closed"')
    request = urllib.request.Request(
        f"{live_server}/live/{code}/results.csv", headers={"Cookie": cookie}
    )
    rows = urllib.request.urlopen(request, timeout=30).read().decode().splitlines()[1:]
    assert sum(int(row.split(",")[-2]) for row in rows) == 3
    for s in (teacher, *followers):
        s.close()


def test_a_student_who_opens_the_page_again_keeps_one_vote(live_server: str):
    code, cookie = start_room(live_server)
    teacher = LiveSocket(live_server, code, cookie)
    ann = join(live_server, code)
    tabs = [LiveSocket(live_server, code, ann) for _ in range(2)]  # two tabs, one student
    for s in (teacher, *tabs):
        s.receive()
    _to_question(teacher, tabs)
    teacher.send("poll_open")
    for s in tabs:
        s.until('data-state="open"')
    tabs[0].send("answer", choice=0)
    tabs[0].until("vote-status")
    tabs[1].send("answer", choice=1)
    tabs[1].until("vote-status")
    assert _counts(teacher.until('data-choice="1" data-count="1"'))[0] == 0
    for s in (teacher, *tabs):
        s.close()


def test_the_roster_says_who_follows_looks_back_left_and_answered():
    from app.web.classroom import room as rooms
    from app.web.classroom import roster
    from app.web.factory import create_app

    live = create_app({"TESTING": True}).extensions["classroom"]
    room, _token = live.create("pagination", "2025-06-18", "stdio")
    store = live.store
    ann, bob, cat = "a" * 16, "b" * 16, "c" * 16
    store.admit(room.code, ann, "Ann")
    store.admit(room.code, bob)
    store.admit(room.code, cat, "cat")
    store.seats.sit(room.code, "p1", "s1", f"f:{ann}", 30)
    store.seats.sit(room.code, "p2", "s2", f"b:{bob}:0", 30)
    store.seats.sit(room.code, "p2", "s3", "f:", 30)  # a socket without a student: not listed
    _, room = store.change(room.code, lambda r: rooms.open_poll(r, 1.0, 3, 1))
    store.vote(room.code, room.poll.id, bob, 2, 3)
    assert [(s.nick, s.state, s.answered) for s in roster.students(store, room)] == [
        ("Ann", "following", False),
        ("", "looking back", True),
        ("cat", "left", False),
    ]


def test_the_roster_takes_who_is_here_from_the_live_seats():
    from app.web.classroom import roster
    from app.web.factory import create_app

    live = create_app({"TESTING": True}).extensions["classroom"]
    room, _token = live.create("pagination", "2025-06-18", "stdio")
    ann, bob = "a" * 16, "b" * 16
    for student in (ann, bob):
        live.store.admit(room.code, student)
    now = [0.0]
    live.store.seats.clock = lambda: now[0]
    live.store.seats.sit(room.code, "alive", "s1", f"f:{ann}", 30)
    live.store.seats.sit(room.code, "killed", "s2", f"f:{bob}", 30)
    now[0] = 20.0  # the living process's beat renews its seats; the killed one's does not
    live.store.seats.renew(room.code, "alive", {"s1": f"f:{ann}"}, 30)
    now[0] = 40.0
    first, second = roster.students(live.store, room)
    assert first.present and not second.present


def _panel(base: str, code: str, cookie: str) -> str:
    request = urllib.request.Request(
        f"{base}/live/{code}/speaker/panel?lang=en", headers={"Cookie": cookie}
    )
    with urllib.request.urlopen(request, timeout=30) as answer:
        return answer.read().decode()


def _seat(panel: str, name: str) -> str:
    found = re.search(r'<li class="seat[^"]*"[^>]*>\s*<span class="seat-name">' + name, panel)
    assert found, f"{name} is not on the roster"
    return panel[found.start() : panel.index("</li>", found.start())]


def test_the_speaker_view_shows_what_students_do_on_their_sockets(live_server: str):
    code, cookie = start_room(live_server)
    teacher = LiveSocket(live_server, code, cookie)
    teacher.receive()
    with urllib.request.urlopen(
        urllib.request.Request(
            f"{live_server}/live/{code}", headers={"Cookie": "mcp-lab-nick=Ann"}
        ),
        timeout=30,
    ) as answer:
        ann_cookie = next(
            c for c in answer.headers.get_all("Set-Cookie") if "mcp-lab-student" in c
        ).split(";")[0]
    ann = LiveSocket(live_server, code, ann_cookie)
    other = LiveSocket(live_server, code, join(live_server, code))
    for s in (ann, other):
        s.receive()
    for step in (1, 2):
        teacher.send("next")
        for s in (ann, other):
            assert s.receive()[:2] == ("delta", step)
    ann.send("goto", step=1)
    ann.receive()
    other.close()
    deadline = 30
    while deadline:  # the roster is read when asked: wait for the closed page's seat to go
        panel = _panel(live_server, code, cookie)
        if 'data-present="0"' in _seat(panel, "Student 2"):
            break
        deadline -= 1
        time.sleep(0.2)
    assert "looking back at step 2" in _seat(panel, "Ann")
    assert "left" in _seat(panel, "Student 2")
    ann.send("catchup")
    ann.receive()
    assert "looking back" not in _seat(_panel(live_server, code, cookie), "Ann")
    for s in (teacher, ann):
        s.close()
