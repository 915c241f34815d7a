"""`mcp-lab probe`: the lab's own client runs discovery against any real server and grades it.

peers: blocking stdio (a child process) and Streamable HTTP links that carry the sans-IO
client's messages and give back what the server said with the exact text on the wire; record:
the session as the same steps `mcp-lab trace` prints; checks: the verdicts; run: the driver and
the command's output."""
