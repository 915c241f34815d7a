"""A trace as a readable sequence diagram for a terminal, narrated in one language."""

from __future__ import annotations

import json
import re
import textwrap
import unicodedata
from collections.abc import Sequence

from .matcher import first_match
from .phrasebook import phrases
from .phrasebook import text as phrase
from .scenario import Scenario
from .step import Step, in_language

_LABELS = ("question", "answer", "cache", "goals", "myths", "myth", "truth", "colon")


def _labels(lang: str) -> dict[str, str]:
    """The text view's labels in `lang` (textview.* of phrases.yaml)."""
    table = phrases()
    return {name: str(table[f"textview.{name}"][lang]) for name in _LABELS}


def _width(text: str) -> int:
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


_CJK = "\u2e80-\u9fff\uac00-\ud7af\uff00-\uffef\u3000-\u303f"
# Full-width comma, full stop, enumeration comma, semicolon, colon, !, ?, closing bracket and
# quotes, then their ASCII kin: what a line may not start with.
_CLOSING = "\uff0c\u3002\u3001\uff1b\uff1a\uff01\uff1f\uff09\u300d\u300f\u3011\u300b,.;:!?)"
_TOKEN = re.compile(rf"[{_CJK}]|[^\s{_CJK}]+|\s+")  # one CJK character, a word, or spaces


def _wrap(text: str, indent: str, width: int = 96) -> list[str]:
    """Wrap by display width: CJK text may break between any two characters, but a Latin word,
    a method name or a number inside it stays whole. Continuation lines align under the text
    (a bullet such as "  - " is not repeated)."""
    follow = " " * len(indent)
    if not any(unicodedata.east_asian_width(ch) in "WF" for ch in text):
        return textwrap.wrap(text, width, initial_indent=indent, subsequent_indent=follow) or [
            indent
        ]
    lines: list[str] = []
    current = ""
    for token in _TOKEN.findall(text):
        # Chinese typography never starts a line with closing punctuation: let it overhang.
        closing = token in _CLOSING
        if _width(current + token) > width - len(indent) and current.strip() and not closing:
            lines.append((follow if lines else indent) + current.rstrip())
            current = "" if token.isspace() else token
        else:
            current += token
    if current.strip():
        lines.append((follow if lines else indent) + current.rstrip())
    return lines or [indent]


def label(step: Step) -> str:
    message = step["message"]
    kind = step["kind"]
    if message is None:
        return str(kind)
    if kind == "request":
        return f"{step['method']} #{step['id']}"
    if kind == "error":
        return f"error {message['error']['code']} #{step['id']} ({step['method']})"
    if kind == "response":
        result = message["result"]
        extra = " +nextCursor" if "nextCursor" in result else ""
        return f"result #{step['id']} ({step['method']}){extra}"
    return str(step["method"])  # notifications


def render_text(trace: Sequence[Step], lang: str, scenario: Scenario) -> str:
    """The whole lesson: title, summary and goals, the narrated steps, then the myths it refutes."""
    labels = _labels(lang)
    colon = labels["colon"]
    first = trace[0]
    out = [
        scenario.title[lang],
        f"{first['protocolVersion']} · {first['era']} · {first['transport']}",
    ]
    out += ["", *_wrap(scenario.summary[lang], ""), "", labels["goals"] + colon.strip()]
    out += [line for goal in scenario.goals for line in _wrap(goal[lang], "  - ")]
    out.append("")
    for step in trace:
        arrow = "··▶" if step["kind"] == "notification" else "──▶"
        head = f"[{step['index']:>3}] {step['from']} {arrow} {step['to']}  {label(step)}"
        if step["kind"] in ("internal", "clock", "terminal", "model-request", "transport"):
            head = f"[{step['index']:>3}] {step['from']} → {step['to']}  ({step['kind']})"
        if step["kind"] == "cache-hit":
            head = f"[{step['index']:>3}] {step['from']} ⟲  {labels['cache']}"
        out.append(head)
        if step["message"] is not None:
            out.append("      " + json.dumps(step["message"], ensure_ascii=False)[:160])
        out += _wrap(in_language(step["narration"], lang), "      ")
        checkpoint = step["checkpoint"]
        if checkpoint:
            out.append(
                f"      ? {labels['question']}{colon}{in_language(checkpoint['question'], lang)}"
            )
            for n, choice in enumerate(checkpoint["choices"]):
                out.append(f"        {chr(65 + n)}. {in_language(choice['text'], lang)}")
            right = checkpoint["answer"]
            out.append(
                f"        {labels['answer']}: {chr(65 + right)}. "
                f"{in_language(checkpoint['choices'][right]['why'], lang)}"
            )
        out.append("")
    if scenario.misconceptions:
        out.append(labels["myths"] + colon.strip())
        for myth in scenario.misconceptions:
            found = first_match(trace, myth["refutedBy"])
            out += _wrap(labels["myth"] + colon + myth["claim"][lang], "  × ")
            see = ""
            if found is not None:
                see = in_language(phrase("textview.see-step", {"step": found}), lang)
            out += _wrap(labels["truth"] + colon + myth["truth"][lang] + see, "    ")
    return "\n".join(out)
