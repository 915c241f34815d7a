"""The sans-IO MCP core: no Flask, sockets, threads or wall clock."""
