"""`python -m app.cli`, as the `mcp-lab` script runs it."""

from app.cli import main

raise SystemExit(main())
