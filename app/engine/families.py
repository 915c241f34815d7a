"""Tool families: a compact way for a scenario to give a server dozens of tools.

A family is `{where, verbs, objects}`; it stands for one tool per verb and object, named
`verb_object` (the domain_action habit of many servers), described as "Where: verb object.",
with a small input schema (a `query` for list and search verbs, an `id` otherwise). The same
family always gives the same tools in the same order, so traces stay deterministic.
"""

from __future__ import annotations

from typing import Any

_QUERY_VERBS = frozenset({"list", "search"})


def expand(family: dict[str, Any]) -> list[dict[str, Any]]:
    where = str(family["where"])
    tools = []
    for obj in family["objects"]:
        for verb in family["verbs"]:
            key = "query" if verb in _QUERY_VERBS else "id"
            tools.append(
                {
                    "name": f"{verb}_{obj}",
                    "description": f"{where}: {verb} {str(obj).replace('_', ' ')}.",
                    "inputSchema": {
                        "type": "object",
                        "properties": {key: {"type": "string"}},
                        "required": [key],
                    },
                }
            )
    return tools


def tools_of(spec: dict[str, Any]) -> tuple[dict[str, Any], ...]:
    """A server's tools: those it lists, then those of its families."""
    families = [t for family in spec.get("toolFamilies", []) for t in expand(family)]
    return (*spec.get("tools", []), *families)
