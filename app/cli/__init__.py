"""The `mcp-lab` command: each module adds the subcommands of one job (the scenario library,
the web lab, real peers); this one assembles the parser and runs the chosen command."""

from __future__ import annotations

import argparse

from app.cli import lab, lessons, peers

__all__ = ["build_parser", "main"]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="mcp-lab", description="MCP Discovery Lab")
    sub = parser.add_subparsers(dest="command", required=True)
    for job in (lessons, lab, peers):
        job.add_commands(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except BrokenPipeError:  # `mcp-lab trace ... | head` is fine
        return 0
