"""Framework-neutral Python, the bottom floor: the tree walker (walker.py), names and scopes
(names.py, scopes.py), the gate before libcst parses (guards.py), suppression comments
(suppression.py). Knows nothing of jax or TF: nothing here imports another jitlint package."""
