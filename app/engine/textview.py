"""A trace as a readable sequence diagram for a terminal, narrated in one language."""

from __future__ import annotations

import json
import re
import textwrap
import unicodedata
from collections.abc import Sequence

from .matcher import first_match
from .scenario import Scenario
from .step import Step, in_language

_LABELS = {
    "en": {
        "question": "Checkpoint",
        "answer": "Answer",
        "cache": "cache hit: nothing on the wire",
        "goals": "You will learn",
        "myths": "Misconceptions this lesson refutes",
        "myth": "Myth",
        "truth": "In fact",
        "see": "see step",
    },
    "zh": {
        "question": "检查点",
        "answer": "答案",
        "cache": "缓存命中：线路上没有任何消息",
        "goals": "学习目标",
        "myths": "本课纠正的常见误区",
        "myth": "误区",
        "truth": "事实",
    },
    "ru": {
        "question": "Контрольный вопрос",
        "answer": "Ответ",
        "cache": "попадание в кэш: в канале тишина",
        "goals": "Чему вы научитесь",
        "myths": "Заблуждения, которые опровергает урок",
        "myth": "Миф",
        "truth": "На деле",
        "see": "см. шаг",
    },
}


def _width(text: str) -> int:
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


_CJK = "\u2e80-\u9fff\uac00-\ud7af\uff00-\uffef\u3000-\u303f"
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
        closing = token in "，。、；：！？）」』】》,.;:!?)"
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
    labels = _LABELS[lang]
    colon = "：" if lang == "zh" else ": "
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
                see = f"（见第 {found} 步）" if lang == "zh" else f" ({labels['see']} {found})"
            out += _wrap(labels["truth"] + colon + myth["truth"][lang] + see, "    ")
    return "\n".join(out)
