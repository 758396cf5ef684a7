"""The cross-file layer: records of traced calls and transformations between files."""
