"""The fix loop: a non-overlapping choice of edits, passes of fixes with re-lint between them,
over many files, written atomically."""
