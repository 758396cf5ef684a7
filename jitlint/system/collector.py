"""The cyclic garbage collector, paused while the command line imports what a command needs.

The imports build classes, functions and tables that live as long as the process: the
collector's passes while they are made scan them again and again (~3% of a one-file run)
and free nothing. `pause` turns it off for that time; `resume` freezes what was made, so
that no later pass scans it, and turns the collector back on before the command's work.
Only a pause of `pause`'s own is resumed: a caller that turned the collector off keeps it off.
"""

from __future__ import annotations

import gc

_paused = False


def pause() -> None:
    """Turn the collector off until `resume`, if it is on."""
    global _paused
    if gc.isenabled():
        gc.disable()
        _paused = True


def resume() -> None:
    """After `pause`: freeze what exists now out of later passes and turn the collector on."""
    global _paused
    if _paused:
        _paused = False
        gc.freeze()
        gc.enable()
