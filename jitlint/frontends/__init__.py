"""Thin front ends over the engine: the command line (and, later, flake8 and pre-commit)."""
