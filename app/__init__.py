"""MCP Discovery Lab: a teaching visualizer of MCP tool discovery.

The package root imports nothing: `app.mcp` is the sans-IO protocol core, `app.engine` runs
scenarios on it, and `app.web` is the Flask shell, whose application factory is
`app.web.factory.create_app`. Keeping Flask out of this module keeps it out of every program
that only needs the core (`mcp-lab mcp-server`, `mcp-lab trace`).
"""
