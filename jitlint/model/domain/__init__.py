"""The value domain every model shares (values.py), classes with their framework bases
(classes.py) and hashability (hashing.py)."""
