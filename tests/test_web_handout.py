"""The handout's folding of long messages, without a browser: what is kept, what is counted."""

from __future__ import annotations

import html

from app.web.handout import (
    FRAME_LINES,
    MESSAGE_LINES,
    PRINTED_WIDTH,
    SLACK,
    fold_frame,
    fold_message,
)


def test_a_short_message_prints_whole() -> None:
    folded = fold_message({"jsonrpc": "2.0", "id": 1, "result": {"tools": []}})
    assert folded.hidden == 0 and "…" not in folded.html


def test_a_message_just_over_the_limit_prints_whole_rather_than_hide_two_lines() -> None:
    message = {f"k{i}": i for i in range(MESSAGE_LINES + SLACK - 2)}  # + the braces
    assert fold_message(message).hidden == 0


def test_a_long_message_keeps_its_head_and_counts_what_it_leaves_out() -> None:
    tools = [{"name": f"tool_{i}", "description": "d" * 30} for i in range(20)]
    folded = fold_message({"jsonrpc": "2.0", "id": 2, "result": {"tools": tools}})
    lines = folded.html.split("\n")
    assert lines[-1] == "…" and len(lines) - 1 <= MESSAGE_LINES
    total = 5 + 20 * 4 + 3  # {, jsonrpc, id, result {, tools [; four lines a tool; 3 closers
    assert folded.hidden == total - (len(lines) - 1)
    assert '<span class="j-k">&#34;jsonrpc&#34;</span>' in folded.html  # still coloured JSON


def test_a_one_line_frame_counts_the_lines_it_wraps_to() -> None:
    frame = '{"jsonrpc":"2.0","id":2,"result":{"tools":[' + "x" * PRINTED_WIDTH * 20 + "]}}\n"
    folded = fold_frame(frame)
    assert folded.hidden > 10
    kept = html.unescape(folded.html.removesuffix("\n…"))
    assert len(kept) == FRAME_LINES * PRINTED_WIDTH
    assert fold_frame('<script>"' * 200).html.count("<script") == 0  # escaped when cut
