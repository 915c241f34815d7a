"""Serving a scenario's server to real MCP clients: the catalog every session shares and its
planned changes (catalog), the MCP-over-HTTP rules as a sans-IO endpoint (endpoint), and the
socket shells that carry it over HTTP (http) and stdio (stdio)."""
