"""Class results: for each question the room polled, how the class answered.

Per poll: the final counts per choice (each student's last answer), the right choice, the share
of students whose *first* answer was right (what the class knew before anyone changed their
mind), and the most-chosen wrong choice, whose explanation is the one the class most needs.
First answers come from the votes as cast, kept in the room's ledger (`votes_log`); the counts
from the store as the poll ended (the room's history). In a student-paced room, the answers
students give on their own count as well (`self_log`, poll 0 in the CSV), their last answer in
the counts. Steps count from 1, as the screen does.

`results.json` is the public shape: {"questions": [{"step", "counts", "right", "rightShare",
"topWrong"}]}; the pages add the texts (question, choices, explanation) in their language.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Protocol

from app.web import i18n
from app.web.classroom import room as rooms
from app.web.classroom.needs import Records
from app.web.classroom.room import Room

VOTES_KEPT = 20000


def votes_log(code: str, poll: int) -> str:
    """The ledger list of every vote cast in poll `poll` of room `code`, in order."""
    return f"votes:{code}:{poll}"


def vote_item(voter: str, choice: int) -> str:
    return f"{voter}\t{choice}"


def answers(items: list[str]) -> tuple[dict[str, int], dict[str, int]]:
    """(first answer, last answer) of each voter, from the votes as cast."""
    first: dict[str, int] = {}
    last: dict[str, int] = {}
    for item in items:
        voter, _, choice = item.rpartition("\t")
        if not voter or not choice.isdigit():
            continue
        first.setdefault(voter, int(choice))
        last[voter] = int(choice)
    return first, last


def summarize(counts: list[int], right: int, first: dict[str, int]) -> dict[str, Any]:
    """The public figures of one question (without its step)."""
    share = None
    if first:
        share = round(sum(1 for c in first.values() if c == right) / len(first), 4)
    wrong = [(n, i) for i, n in enumerate(counts) if i != right and n > 0]
    top = max(wrong, key=lambda pair: (pair[0], -pair[1]))[1] if wrong else None
    return {"counts": list(counts), "right": right, "rightShare": share, "topWrong": top}


def self_log(code: str) -> str:
    """The ledger list of the answers students gave on their own in a student-paced room."""
    return f"self:{code}"


def self_item(voter: str, version: str, transport: str, step: int, choice: int) -> str:
    return f"{version}\t{transport}\t{step}\t{voter}\t{choice}"


def _own_pace(live: Records, room: Room) -> list[dict[str, Any]]:
    """The questions students answered on their own (poll 0), by step, with their answers."""
    groups: dict[tuple[str, str, int], list[str]] = {}
    for item in live.ledger.read(self_log(room.code)):
        version, transport, at, rest = [*item.split("\t", 3), "", "", "", ""][:4]
        if at.isdigit() and rest:
            groups.setdefault((version, transport, int(at)), []).append(rest)
    out = []
    for (version, transport, step), items in sorted(groups.items(), key=lambda g: g[0][2]):
        trace = live.lab.trace(room.scenario, version, transport)
        checkpoint = trace[min(step, len(trace) - 1)].get("checkpoint")
        if not checkpoint:
            continue
        counts = [0] * len(checkpoint.get("choices", []))
        for choice in answers(items)[1].values():
            if 0 <= choice < len(counts):
                counts[choice] += 1
        answer = int(checkpoint.get("answer", 0))
        where = {"version": version, "transport": transport, "step": step, "answer": answer}
        out.append({"poll": 0, "counts": counts, "items": items} | where)
    return out


def polls(live: Records, room: Room) -> list[dict[str, Any]]:
    """The room's polls, oldest first (the open one with its counts so far), then the questions
    students answered at their own pace; each with `items`, its answers as cast."""
    poll = room.poll
    counts = live.store.counts(room.code, poll.id, poll.choices) if poll is not None else None
    polled = [
        dict(p) | {"items": live.ledger.read(votes_log(room.code, int(p["poll"])))}
        for p in sorted(rooms.polls(room, counts), key=lambda p: int(p["poll"]))
    ]
    return polled + _own_pace(live, room)


def questions(live: Records, room: Room) -> list[dict[str, Any]]:
    """The public results of every poll of the room (see the module docstring)."""
    out = []
    for p in polls(live, room):
        first, _ = answers(p["items"])
        out.append({"step": p["step"] + 1} | summarize(p["counts"], p["answer"], first))
    return out


def shown(live: Records, room: Room, lang: str) -> list[dict[str, Any]]:
    """The results with their texts in `lang`, for the results screen, which the projector
    shows: a question whose answer the room has not revealed keeps it (and what depends on it)
    `secret` until the room reveals it or ends."""
    out = []
    for p, q in zip(polls(live, room), questions(live, room), strict=True):
        trace = live.lab.trace(room.scenario, p["version"], p["transport"])
        checkpoint = trace[min(p["step"], len(trace) - 1)].get("checkpoint") or {}
        choices = checkpoint.get("choices", [])
        texts = [i18n.pick(c.get("text"), lang) for c in choices]
        top = q["topWrong"]
        out.append(
            q
            | {
                "question": i18n.pick(checkpoint.get("question"), lang),
                "texts": texts,
                "rightText": texts[q["right"]] if q["right"] < len(texts) else "",
                "topWrongText": texts[top] if top is not None and top < len(texts) else "",
                "topWrongWhy": i18n.pick(choices[top].get("why"), lang)
                if top is not None and top < len(choices)
                else "",
                "total": sum(q["counts"]),
                "secret": not room.ended
                and (p["version"], p["transport"], p["step"]) not in room.revealed,
            }
        )
    return out


def own(live: Records, room: Room, voter: str) -> dict[str, int]:
    """One student's summary: questions polled, answered, and right at their last answer."""
    asked = polls(live, room)
    answered = right = 0
    for p in asked:
        _, last = answers(p["items"])
        if voter in last:
            answered += 1
            right += int(last[voter] == p["answer"])
    return {"questions": len(asked), "answered": answered, "right": right}


class Writer(Protocol):
    def writerow(self, row: Iterable[Any], /) -> Any: ...


def write_csv(writer: Writer, live: Records, room: Room, lang: str) -> None:
    """Every poll of the room as CSV rows: one per choice, with the question's class results
    (the share right at the first answer, the most chosen wrong choice); each row ends with
    the choice's votes and whether it is right, as the CSV always did."""
    writer.writerow(
        [
            *("poll", "version", "transport", "step", "question", "right_at_first_answer"),
            *("choice", "text", "most_chosen_wrong", "votes", "correct"),
        ]
    )
    for p, q in zip(polls(live, room), questions(live, room), strict=True):
        trace = live.lab.trace(room.scenario, p["version"], p["transport"])
        checkpoint = trace[p["step"]].get("checkpoint") or {}
        counts = q["counts"]
        share = "" if q["rightShare"] is None else q["rightShare"]
        for i, choice in enumerate(checkpoint.get("choices", [])):
            writer.writerow(
                [
                    *(p["poll"], p["version"], p["transport"], q["step"]),
                    i18n.pick(checkpoint.get("question"), lang),
                    share,
                    i + 1,
                    i18n.pick(choice.get("text"), lang),
                    "yes" if i == q["topWrong"] else "no",
                    counts[i] if i < len(counts) else 0,
                    "yes" if i == q["right"] else "no",
                ]
            )
