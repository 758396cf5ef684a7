"""Fixes that build once, at module level or in `__init__`, what a function or method
builds on every call (see `out`; `scope` holds the checks they share), and one that moves a
late environment write above the statement that read the environment (`env_write`)."""
