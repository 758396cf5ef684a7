"""What jitlint asks of the operating system, done so that no input can hang or crash a run:
reading only regular files, boundedly (reading.py); worker processes tied to the main one
(workers.py); per-file time and memory budgets (budget.py); finding the files to lint
under the exclusions and .gitignore files (discovery.py)."""

MAX_JOBS = 256  # `-j` above this is a usage error; `-j 0` (the default) means one per core
