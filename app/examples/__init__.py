"""Code a student can run: `mcp-lab example` scripts (plan, extract, script, sdkpeer,
sdkconnect) and the
Code view's per-step snippets (code, clientside, serverside), with their texts in texts.yaml."""
