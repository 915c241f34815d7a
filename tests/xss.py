"""Our XSS corpus, and a scenario whose every text field carries it.

Each payload, if a browser ever ran it, calls `__xss(n)` (n is its number in PAYLOADS): the
browser test defines that function and records the calls. The payloads cover script tags,
event handlers, javascript: and data: URLs, SVG and MathML parsing tricks, attribute and
element breakouts (out of quotes, titles, textareas, comments, CDATA), htmx attributes (which
htmx would act on if they reached the page as markup), template syntax and encodings.

`hostile_scenario` rewrites a shipped scenario so that titles, summaries, goals, narration,
checkpoint questions, choices and explanations, server names, tool titles and descriptions,
input schema property names and the model request all carry payloads, in en, zh and ru.
"""

from __future__ import annotations

from itertools import count
from pathlib import Path
from typing import Any

import yaml

_TEMPLATES = [
    "<script>__xss({n})</script>",
    "<SCRIPT SRC=data:text/javascript,__xss({n})></SCRIPT>",
    "<img src=x onerror=__xss({n})>",
    '<img src="x" onerror="__xss({n})">',
    "<img/src/onerror=__xss({n})>",
    "<svg onload=__xss({n})>",
    "<svg><script>__xss({n})</script></svg>",
    "<svg><animate onbegin=__xss({n}) attributeName=x dur=1s>",
    '<svg><a xlink:href="javascript:__xss({n})"><text x=20 y=20>go</text></a></svg>',
    "<svg><foreignObject><img src=x onerror=__xss({n})></foreignObject></svg>",
    "<math><mtext><table><mglyph><style><img src=x onerror=__xss({n})>",
    '<math href="javascript:__xss({n})">m</math>',
    "<body onload=__xss({n})>",
    '<iframe src="javascript:parent.__xss({n})"></iframe>',
    '<iframe srcdoc="<script>parent.__xss({n})</script>"></iframe>',
    '<object data="javascript:__xss({n})"></object>',
    '<embed src="data:text/html,<script>parent.__xss({n})</script>">',
    '<a href="javascript:__xss({n})">link</a>',
    '<a href=" jav&#x09;ascript:__xss({n})">tab</a>',
    '<a href="JaVaScRiPt:__xss({n})">case</a>',
    "<details open ontoggle=__xss({n})>",
    "<input autofocus onfocus=__xss({n})>",
    "<select autofocus onfocus=__xss({n})></select>",
    "<textarea autofocus onfocus=__xss({n})></textarea>",
    "<video><source onerror=__xss({n})></video>",
    "<audio src=x onerror=__xss({n})>",
    "<marquee onstart=__xss({n})>m</marquee>",
    "<form><button formaction=javascript:__xss({n})>b</button></form>",
    '<meta http-equiv="refresh" content="0;url=javascript:__xss({n})">',
    '<base href="javascript:__xss({n})//">',
    '<link rel=stylesheet href="javascript:__xss({n})">',
    "<style>@import 'javascript:__xss({n})';</style>",
    '<div style="background:url(javascript:__xss({n}))">s</div>',
    '"><img src=x onerror=__xss({n})>',
    "'><svg onload=__xss({n})>",
    '" onmouseover="__xss({n})" x="',
    "' autofocus onfocus='__xss({n})",
    "</title><script>__xss({n})</script>",
    "</textarea><script>__xss({n})</script>",
    "</style><script>__xss({n})</script>",
    "--><script>__xss({n})</script><!--",
    "]]><script>__xss({n})</script>",
    '<noscript><p title="</noscript><img src=x onerror=__xss({n})>">',
    "</text><script>__xss({n})</script><text>",
    '<div hx-get="/" hx-trigger="load" hx-on::after-request="__xss({n})">h</div>',
    '<div hx-on:click="__xss({n})" id="btn-next">h</div>',
    "<div ws-send hx-vals='js:{{a:__xss({n})}}' hx-trigger=\"load\">w</div>",
    '<div hx-swap-oob="true" id="main"><img src=x onerror=__xss({n})></div>',
    "{{{{ __xss({n}) }}}}{{% print(__xss) %}}",
    "${{__xss({n})}}",
    "&lt;script&gt;__xss({n})&lt;/script&gt;",
    "&#60;img src=x onerror=__xss({n})&#62;",
    "\\u003cscript\\u003e__xss({n})\\u003c/script\\u003e",
    "%3Cscript%3E__xss({n})%3C/script%3E",
    "<scr<script>ipt>__xss({n})</scr</script>ipt>",
    "<img src=`x`onerror=__xss({n})>",
    "<x contenteditable onfocus=__xss({n}) autofocus>x</x>",
    "\u202e<img src=x onerror=__xss({n})>\u0000",
    "javascript:__xss({n})",
    "data:text/html;base64,PHNjcmlwdD5wYXJlbnQuX194c3MoMSk8L3NjcmlwdD4=",
]
PAYLOADS = [template.format(n=n) for n, template in enumerate(_TEMPLATES)]


def cycle() -> Any:
    """An endless supply of payloads, each used in turn."""
    for i in count():
        yield PAYLOADS[i % len(PAYLOADS)]


def _texts(node: dict[str, Any], payloads: Any) -> None:
    """Replace a {en, zh, ru} text with payloads (each language its own)."""
    for lang in ("en", "zh", "ru"):
        if lang in node:
            node[lang] = f"{lang} {next(payloads)}"


def _walk(node: Any, payloads: Any) -> None:
    if isinstance(node, dict):
        if {"en", "zh", "ru"} & set(node) and all(isinstance(v, str) for v in node.values()):
            _texts(node, payloads)
            return
        for value in node.values():
            _walk(value, payloads)
    elif isinstance(node, list):
        for item in node:
            _walk(item, payloads)


def hostile_scenario(source: Path, folder: Path, sid: str = "xss") -> Path:
    """A copy of `source` with every text field a payload, written to folder/<sid>.yaml."""
    data = yaml.safe_load(source.read_text("utf-8"))
    payloads = cycle()
    data["id"] = sid
    _walk({k: v for k, v in data.items() if k != "servers"}, payloads)
    for server in data.get("servers", []):
        server["name"] = f"srv {next(payloads)}"
        for tool in server.get("tools", []):
            tool["title"] = next(payloads)
            tool["description"] = next(payloads)
            schema = tool.get("inputSchema", {})
            renamed = {name: f"{name}{next(payloads)}" for name in schema.get("properties", {})}
            schema["properties"] = {renamed[k]: v for k, v in schema.get("properties", {}).items()}
            if "required" in schema:
                schema["required"] = [renamed.get(k, k) for k in schema["required"]]
    for step in data.get("script", []):
        if isinstance(step.get("model_request"), str):
            step["model_request"] = next(payloads)
    path = folder / f"{sid}.yaml"
    path.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), "utf-8")
    return path
