"""MCP Discovery Lab: a teaching visualizer of MCP tool discovery."""
