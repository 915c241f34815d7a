"""`mcp-lab example`: a complete Python script in which the official SDK lives through a lesson
against `mcp-lab mcp-server`, printing what it sees at each step.

The script is assembled, not templated: the lesson's body comes from the trace's acts
(app.examples.plan), one line of code per act under a comment naming the lab's step; the
helpers it calls are copied by name out of app/examples/sdkpeer.py and sdkconnect.py, with every
definition they use and only the imports those need, so what a student reads is code that ruff,
mypy and the tests have checked. The module reads those files as text and never imports them:
the SDK is not a dependency of the lab itself.
"""

from __future__ import annotations

import json
import keyword
import re
import unicodedata
from pathlib import Path

from app.engine.scenario import Scenario, default_scenarios_dir
from app.mcp import versions

from . import plan as acts_of
from .clientside import literal
from .extract import helper_code, helpers
from .texts import say

LIMIT = 100  # the repository's line length, which scripts are held to
WIDTH = 96  # comments and docstrings, with room to spare
LAB_URL = "http://127.0.0.1:5000"
_GENERATED = {"stack", "lesson", "main", "SCENARIO", "VERSION", "URLS"}


def _width(text: str) -> int:
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def _wrap(text: str, width: int) -> list[str]:
    """Lines of at most `width` columns: at spaces, and between any two wide characters."""
    lines: list[str] = []
    for word in re.findall(r"\S+", text):
        line = lines[-1] if lines else None
        if line is not None and _width(line) + 1 + _width(word) <= width:
            lines[-1] = f"{line} {word}"
            continue
        while _width(word) > width:  # Chinese runs on without spaces
            cut = next(i for i in range(len(word), 0, -1) if _width(word[:i]) <= width)
            lines.append(word[:cut])
            word = word[cut:]
        lines.append(word)
    return lines


def _comment(text: str, indent: str = "    ") -> list[str]:
    return [f"{indent}# {line}" for line in _wrap(text, WIDTH - len(indent) - 2)]


def _variable(sid: str) -> str:
    name = re.sub(r"\W", "_", sid)
    reserved = _GENERATED | set(helpers()[1])
    if not name.isidentifier() or keyword.iskeyword(name) or name in reserved:
        name = f"server_{name}".replace("__", "_")
    return name


class _Body:
    """The lesson function's lines, one act at a time."""

    def __init__(self, version: str, transport: str, lang: str):
        self.version, self.transport, self.lang = version, transport, lang
        self.lines: list[str] = []
        self.opened: list[str] = []
        self.roots: set[str] = {"Peer", "say"}
        self.unused: set[str] = set()  # peers opened and not yet spoken to

    def note(self, step: int, *texts: str) -> None:
        label = say("script.step", self.lang, n=step)
        self.lines += _comment(f"{label} · " + " ".join(texts))

    def code(self, line: str) -> None:
        self.lines.append(f"    {line}")
        self.unused -= {var for var in self.unused if re.search(rf"\b{var}\b", line)}

    def finish(self) -> list[str]:
        """The body; a peer nothing is asked of keeps its connection but not a name."""
        lines = list(self.lines)
        for var in self.unused:
            lines = [line.replace(f"    {var} = await ", "    await ", 1) for line in lines]
        return lines or ["    pass"]

    def open(self, act: acts_of.Open) -> None:
        var, sid, lang = _variable(act.server), json.dumps(act.server), self.lang
        where = "SCENARIO" if self.transport == "stdio" else f"URLS[{sid}]"
        if act.era == "legacy":
            kind = "sse" if self.transport == "http" and act.version == "2024-11-05" else None
            function = f"open_legacy_{kind or self.transport}"
            opening = say("act.open-legacy", lang, server=act.server, version=act.version)
            self.note(act.step, opening)
            version = "VERSION" if act.version == self.version else json.dumps(act.version)
            self.code(f"{var} = await {function}(stack, {where}, {sid}, {version})")
        else:
            function = f"open_modern_{self.transport}"
            key = "act.open-probe" if act.probe else "act.open-pinned"
            listen = [say("act.listen", lang)] if act.listen else []
            self.note(act.step, say(key, lang, server=act.server), *listen)
            arguments = f"stack, {where}, {sid}, probe={act.probe}, listen={act.listen}"
            line = f"{var} = await {function}({arguments})"
            if len(line) + 4 <= LIMIT:  # as ruff format would write it
                self.code(line)
            else:
                self.code(f"{var} = await {function}(")
                self.code(f"    {arguments}")
                self.code(")")
        self.roots.add(function)
        self.opened.append(var)
        self.unused.add(var)

    def act(self, act: acts_of.Act) -> None:
        lang = self.lang
        server = getattr(act, "server", "")
        var = _variable(server) if server else ""
        if isinstance(act, acts_of.Open):
            self.open(act)
        elif isinstance(act, acts_of.Walk) and act.pages:
            pages = ", ".join(map(str, act.pages))
            key = "act.refresh-pages" if len(act.pages) == 1 else "act.refresh-pages-many"
            self.note(act.step, say(key, lang, server=server, pages=pages))
            self.code(f"await {var}.refresh_pages({pages})")
        elif isinstance(act, acts_of.Walk):
            self.note(act.step, say("act.walk", lang, server=server))
            self.code(f"await {var}.list_all_tools()")
        elif isinstance(act, acts_of.Cached):
            self.note(act.step, say("act.cached", lang, server=server))
            self.code(f"{var}.show_cached()")
        elif isinstance(act, acts_of.Change):
            follow = "act.change-notifies" if act.notifies else "act.change-silent"
            self.note(act.step, say("act.change", lang, server=server), say(follow, lang))
            self.code(f"await {var}.change_server()")
            if act.notifies:
                self.code(f"await {var}.wait_list_changed()")
        elif isinstance(act, acts_of.Call):
            self.note(act.step, say("act.call", lang, server=server, name=act.name))
            call = f"await {var}.call({json.dumps(act.name)}, {literal(act.arguments)})"
            if len(call) + 4 > WIDTH:  # a long literal goes on lines of its own
                self.code("arguments = {")
                for key, value in act.arguments.items():
                    self.code(f"    {literal(key)}: {literal(value)},")
                self.code("}")
                call = f"await {var}.call({json.dumps(act.name)}, arguments)"
            self.code(call)
        elif isinstance(act, acts_of.Offer):
            self.note(act.step, say("act.offer", lang))
            self.code(f"offer_to_model([{', '.join(self.opened)}])")
            self.roots.add("offer_to_model")
        elif isinstance(act, acts_of.Pause):
            seconds = f"{act.ms / 1000:g}"
            self.note(act.step, say("act.pause", lang, seconds=seconds))
            self.code(f'say("[time] +{seconds} s")')
        elif isinstance(act, acts_of.ListWithCursor):
            self.note(act.step, say("act.cursor", lang, server=server))
            self.code(f"await {var}.list_with_cursor({json.dumps(act.cursor)})")
        elif isinstance(act, acts_of.DiscoverWith):
            self.note(act.step, say("act.discover", lang, server=server, version=act.version))
            self.code(f"await {var}.discover_with({json.dumps(act.version)})")
        elif isinstance(act, acts_of.Beyond) and act.method == "server":
            self.note(act.step, say("act.beyond-server", lang, server=server))
        elif isinstance(act, acts_of.Beyond):
            self.note(act.step, say("act.beyond", lang, server=server, method=act.method))


def _target(scenario: Scenario) -> str:
    """How `mcp-lab mcp-server` finds the scenario: its id in the library, else its file."""
    path = Path(scenario.path).resolve()
    in_library = path == (default_scenarios_dir() / f"{scenario.id}.yaml").resolve()
    return scenario.id if in_library else str(path)


def _docstring(scenario: Scenario, version: str, transport: str, lang: str) -> list[str]:
    link = f"{LAB_URL}/scenario/{scenario.id}?version={version}&transport={transport}"
    title = scenario.title.get(lang) or scenario.title["en"]
    intro = say("script.intro", lang, title=title, version=version, transport=transport, link=link)
    flags = "" if version == scenario.default_version else f" --protocol-version {version}"
    flags += "" if transport == "stdio" else " --transport http"
    commands = []
    if transport == "http":
        for port, spec in enumerate(scenario.data["servers"], start=3001):
            commands.append(
                f".venv/bin/mcp-lab mcp-server {_target(scenario)} --server {spec['id']} "
                f"--transport http --port {port}"
            )
    commands += [
        f".venv/bin/mcp-lab example {_target(scenario)}{flags} > {scenario.id}.py",
        f".venv/bin/python {scenario.id}.py",
    ]
    run = say(f"script.run-{transport}", lang)
    return [
        *_wrap(intro, WIDTH),
        "",
        *_wrap(run, WIDTH),
        "",
        *(line for command in commands for line in _shell(command)),
    ]


def _shell(command: str) -> list[str]:
    """A command for the docstring, continued with backslashes where it is too long."""
    lines = ["    "]
    for word in command.split(" "):
        if len(lines[-1]) + len(word) + 3 > WIDTH and lines[-1].strip():
            lines[-1] += " \\"
            lines.append("        ")
        lines[-1] += word if not lines[-1].strip() else f" {word}"
    return lines


def example_script(scenario: Scenario, version: str, transport: str, lang: str = "en") -> str:
    """The script for one lesson, protocol version and transport, commented in `lang`."""
    from app.engine.runner import run_trace

    body = _Body(version, transport, lang)
    script = list(scenario.data.get("script", []))
    for act in acts_of.plan(run_trace(scenario, version, transport), script):
        body.act(act)
    if transport == "http":
        body.roots.add("read_urls")
    imports, helpers = helper_code(body.roots)
    constants = [f"SCENARIO = {literal(_target(scenario))}", f"VERSION = {json.dumps(version)}"]
    if transport == "http":
        urls = [
            f"{literal(spec['id'])}: {literal(f'http://127.0.0.1:{port}')}"
            for port, spec in enumerate(scenario.data["servers"], start=3001)
        ]
        line = f"URLS = {{{', '.join(urls)}}}"
        constants += (
            [line] if len(line) <= WIDTH else ["URLS = {", *(f"    {u}," for u in urls), "}"]
        )
    start = ["read_urls(URLS)"] if transport == "http" else []
    era = versions.era_of(version)
    head = ['r"""' + f"{scenario.id} · {version} ({era}) · {transport}", ""]
    return "\n".join(
        [
            "#!/usr/bin/env python3",
            *head,
            *_docstring(scenario, version, transport, lang),
            '"""',
            "",
            "from __future__ import annotations",
            "",
            *_sorted_imports(imports),
            "",
            *constants,
            helpers,
            "",
            "",
            "async def lesson(stack: AsyncExitStack) -> None:",
            *body.finish(),
            "",
            "",
            "async def main() -> None:",
            "    async with AsyncExitStack() as stack:",
            "        await lesson(stack)",
            "",
            "",
            'if __name__ == "__main__":',
            *(f"    {line}" for line in start),
            "    anyio.run(main)",
            "",
        ]
    )


def _sorted_imports(lines: list[str]) -> list[str]:
    """extract.import_lines gives isort's order within a section: standard library, a blank line,
    third party."""
    stdlib = [line for line in lines if line.split()[1].split(".")[0] not in {"anyio", "mcp"}]
    third = [line for line in lines if line not in stdlib]
    return [*stdlib, *([""] if stdlib and third else []), *third]


__all__ = ["example_script"]
