"""Applying fixes: edits in passes, re-lint between passes, never a result that does not parse."""
