"""The fix loop: passes of fixes with re-lint between them, over many files, written atomically."""
