"""`python -m jitlint` and the `jitlint` command (pyproject's console script)."""

from __future__ import annotations

from jitlint.system import collector


def run() -> int:
    # The command line imports what a command needs when it starts the command (a lint
    # imports libcst, the models and the engine there): the collector stays off until the
    # work begins (system/collector.py; `resume` is called where each command starts it).
    collector.pause()
    try:
        from jitlint.frontends.cli import main

        return main()
    finally:
        collector.resume()


if __name__ == "__main__":
    raise SystemExit(run())
