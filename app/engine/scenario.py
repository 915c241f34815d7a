"""Scenario files: load YAML, validate it against the scenario JSON Schema and the rules a schema
cannot say, and report each problem as `file:line: field: message` (app.engine.scenario_errors).

The data is loaded once for values, and composed once more for positions only when there is a
problem to point at. A broken file yields errors, never an exception, so one bad file cannot
take the library down.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema
import yaml

from app import paths
from app.mcp import versions

from .scenario_errors import ScenarioError, ScenarioInvalid, field_of, line_of, yaml_error

# What callers have always imported from here: the loader raises and reports these.
__all__ = [
    "ACTION_VERBS",
    "OFFER_VERBS",
    "SERVER_VERBS",
    "Scenario",
    "ScenarioError",
    "ScenarioInvalid",
    "default_scenarios_dir",
    "load_scenario",
    "parse_scenario",
    "scenario_path",
    "validate",
]

# Verbs for resources, resource templates and prompts (app.engine.offer_actions); each names a
# server.
OFFER_VERBS = (
    "list_resources",
    "list_resource_templates",
    "list_prompts",
    "read_resource",
    "subscribe",
    "offer_change",
    "resource_update",
)
ACTION_VERBS = (
    "connect",
    "list_tools",
    "refresh",
    "model_request",
    "advance_clock",
    "server_change",
    "deliver",
    "deliver_last",
    "settle",
    "send",
    "call_tool",
    "prepare_call",
    "run_call",
    "set_user",
    "set_host",
    "note",
    "lose",
    "restart_server",
    *OFFER_VERBS,
    # the host's context strategies (app.engine.context_actions)
    "set_agent",
    "tool_search",
)
# Verbs whose argument names a server (or `all`).
SERVER_VERBS = (
    "connect",
    "list_tools",
    "refresh",
    "server_change",
    "send",
    "restart_server",
    *OFFER_VERBS,
)
_FAST_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@dataclass(frozen=True)
class Scenario:
    id: str
    path: str
    data: dict[str, Any] = field(repr=False)

    @property
    def title(self) -> dict[str, str]:
        return dict(self.data["title"])

    @property
    def summary(self) -> dict[str, str]:
        return dict(self.data["summary"])

    @property
    def goals(self) -> list[dict[str, str]]:
        return list(self.data["goals"])

    @property
    def topics(self) -> list[str]:
        return list(self.data.get("topics", []))

    @property
    def versions(self) -> list[str]:
        declared = self.data.get("versions", "all")
        return list(versions.VERSIONS) if declared == "all" else list(declared)

    @property
    def transports(self) -> list[str]:
        return list(self.data.get("transports", ["stdio", "http"]))

    @property
    def default_version(self) -> str:
        return str(self.data.get("defaultVersion", self.versions[-1]))

    @property
    def misconceptions(self) -> list[dict[str, Any]]:
        return list(self.data.get("misconceptions", []))

    @property
    def order(self) -> int:
        return int(self.data.get("order", 1000))


@cache
def _validator() -> jsonschema.Draft202012Validator:
    text = resources.files("app.engine").joinpath("scenario.schema.json").read_text("utf-8")
    return jsonschema.Draft202012Validator(json.loads(text))


def _schema_message(error: jsonschema.ValidationError) -> str:
    if error.validator == "additionalProperties":
        return str(error.message).replace("Additional properties are not allowed", "unknown key")
    if error.validator == "oneOf" and error.path and error.path[-1] == "versions":
        return 'must be "all" or a list of protocol versions'
    return str(error.message)


def validate(data: Any, node: yaml.Node | None, file: str) -> list[ScenarioError]:
    """Schema errors first; the rules of meaning only once the shape is right."""
    errors = [
        ScenarioError(
            file,
            line_of(node, list(e.absolute_path)),
            field_of(list(e.absolute_path)),
            _schema_message(e),
        )
        for e in sorted(
            _validator().iter_errors(data), key=lambda e: list(map(str, e.absolute_path))
        )
    ]
    if errors:
        return errors

    def err(path: list[Any], message: str) -> None:
        errors.append(ScenarioError(file, line_of(node, path), field_of(path), message))

    server_ids = [s["id"] for s in data["servers"]]
    for i, sid in enumerate(server_ids):
        if server_ids.index(sid) != i:
            err(["servers", i, "id"], f"server id {sid!r} is used twice")
    for i, server in enumerate(data["servers"]):
        names = [t["name"] for t in server["tools"]]
        for j, name in enumerate(names):
            if names.index(name) != j:
                err(
                    ["servers", i, "tools", j, "name"],
                    f"tool {name!r} is listed twice on one server",
                )
    labels: set[str] = set()
    for i, action in enumerate(data["script"]):
        verbs = [k for k in action if k in ACTION_VERBS]
        if len(verbs) != 1:
            err(["script", i], f"an action needs exactly one verb of: {', '.join(ACTION_VERBS)}")
            continue
        verb = verbs[0]
        target = action[verb]
        if verb in SERVER_VERBS and target != "all" and target not in server_ids:
            err(["script", i, verb], f"unknown server {target!r}; servers are {server_ids}")
        if verb == "send" and "method" not in action:
            err(["script", i], "send needs a method")
        if verb == "prepare_call":
            labels.add(str(action.get("as", target)))
        if verb == "run_call" and target not in labels:
            err(["script", i, verb], f"no earlier prepare_call named {target!r}")
        checkpoint = action.get("checkpoint")
        if checkpoint and checkpoint["answer"] >= len(checkpoint["choices"]):
            err(["script", i, "checkpoint", "answer"], "answer is not the index of a choice")
    return errors


_CJK = "\u3000-\u303f\u3400-\u9fff\uff00-\uffef"
_PUNCT = "\u3000-\u303f\uff00-\uffef"  # full-width punctuation carries its own spacing
_SPACE_BETWEEN_CJK = re.compile(rf"(?<=[{_CJK}]) +(?=[{_CJK}])|(?<=[{_PUNCT}]) +| +(?=[{_PUNCT}])")


def _tidy_chinese(node: Any) -> Any:
    """YAML folds a multi-line string with spaces; Chinese never has a space between two of its
    characters, so drop those (spaces beside Latin words stay)."""
    if isinstance(node, dict):
        return {
            k: _SPACE_BETWEEN_CJK.sub("", v)
            if k == "zh" and isinstance(v, str)
            else _tidy_chinese(v)
            for k, v in node.items()
        }
    if isinstance(node, list):
        return [_tidy_chinese(item) for item in node]
    return node


def load_scenario(path: str | Path) -> Scenario:
    """Load and validate one file; raises ScenarioInvalid with every problem found."""
    path = Path(path)
    file = path.name
    try:
        text = path.read_text("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ScenarioInvalid([ScenarioError(file, 1, "(file)", f"cannot read: {exc}")]) from None
    return parse_scenario(text, file, path.stem, path)


def parse_scenario(text: str, file: str, stem: str | None, path: str | Path) -> Scenario:
    """A scenario from its YAML text, reported as `file`; its id must be `stem` (None: any
    id, for a text with no file yet); raises ScenarioInvalid with every problem found."""
    try:
        data = yaml.load(text, Loader=_FAST_LOADER)
    except yaml.YAMLError as exc:
        raise ScenarioInvalid([yaml_error(file, exc)]) from None
    if not isinstance(data, dict):
        raise ScenarioInvalid([ScenarioError(file, 1, "(top level)", "a scenario is a mapping")])
    stem = data.get("id") if stem is None else stem
    errors = validate(data, None, file)
    node = None
    if errors or stem != data.get("id"):
        # Positions are only needed to report a problem: compose the node tree only then.
        try:
            node = yaml.compose(text, Loader=yaml.SafeLoader)
        except yaml.YAMLError as exc:  # the C loader is more lenient than the pure one
            raise ScenarioInvalid([yaml_error(file, exc)]) from None
        errors = validate(data, node, file)
    if not errors and stem != data["id"]:
        errors.append(
            ScenarioError(
                file,
                line_of(node, ["id"]),
                "id",
                f"id {data['id']!r} must match the file name {stem!r}",
            )
        )
    if errors:
        raise ScenarioInvalid(errors)
    return Scenario(id=data["id"], path=str(path), data=_tidy_chinese(data))


def default_scenarios_dir() -> Path:
    """scenarios/ at the top of the repository (inside the package once installed)."""
    return paths.SCENARIOS


def scenario_path(scenario_id_or_path: str) -> Path:
    """A scenario file named by path, or by id in the default scenarios folder; raises
    FileNotFoundError for an id that names no file."""
    path = Path(scenario_id_or_path)
    if path.suffix in (".yaml", ".yml") or path.exists():
        return path
    candidate = default_scenarios_dir() / f"{scenario_id_or_path}.yaml"
    if not candidate.exists():
        raise FileNotFoundError(f"no scenario {scenario_id_or_path!r}")
    return candidate
