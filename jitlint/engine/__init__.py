"""The engine: read, parse once, analyse once, run every selected rule in one traversal."""
