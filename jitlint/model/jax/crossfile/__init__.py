"""The JAX model's cross-file facts: records of calls and transformations between files
(records.py), what functions return (returns.py, returned.py) and what classes are
(class_facts.py). model/project/ resolves them to the files of a run."""
