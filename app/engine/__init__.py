"""The scenario engine: scenario files in, deterministic traces of complete-state steps out."""
