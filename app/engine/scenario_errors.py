"""How a problem in a lesson's YAML is reported: `file:line: field: message`.

The scenario loader (app.engine.scenario), the meaning checks (checks), challenges and the
authoring page all report in this one shape, each pointing at the line of the field it is
about. Line numbers come from PyYAML's node tree: an error's JSON path is walked through the
composed nodes to the line that names the deepest field found. Kept apart from the loader so
that the checks that run a scenario can report where a problem is without importing how a
scenario is loaded.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import yaml


@dataclass(frozen=True)
class ScenarioError:
    """One problem, where it is: the file, the line, the field (a JSON path) and what is wrong."""

    file: str
    line: int
    field: str
    message: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.field}: {self.message}"


class ScenarioInvalid(Exception):
    """Every problem found in one file (a file with any problem is refused whole)."""

    def __init__(self, errors: list[ScenarioError]):
        super().__init__("\n".join(map(str, errors)))
        self.errors = errors


def line_of(node: yaml.Node | None, path: list[Any]) -> int:
    """Walk a JSON path through the composed YAML nodes to the line of the deepest field found."""
    line = node.start_mark.line + 1 if node is not None else 1
    for part in path:
        if isinstance(node, yaml.MappingNode):
            pair = next(((k, v) for k, v in node.value if k.value == part), None)
            if pair is None:
                break
            key, node = pair
            line = key.start_mark.line + 1  # the line that names the field
        elif (
            isinstance(node, yaml.SequenceNode) and isinstance(part, int) and part < len(node.value)
        ):
            node = node.value[part]
            line = node.start_mark.line + 1
        else:
            break
    return line


def field_of(path: list[Any]) -> str:
    """A JSON path as a reader writes it: `script[3].checkpoint.answer`."""
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(top level)"


def yaml_error(file: str, exc: yaml.YAMLError) -> ScenarioError:
    """A file PyYAML cannot read, at the line where it gave up."""
    mark = getattr(exc, "problem_mark", None)
    line = mark.line + 1 if mark is not None else 1
    return ScenarioError(file, line, "(yaml)", str(getattr(exc, "problem", exc)))
