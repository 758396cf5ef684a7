"""Framework-neutral Python, the bottom floor: the tree walker (walker.py), the gate before
libcst parses (guards.py), suppression comments (suppression.py). Knows nothing of jax or TF."""
