"""From a JIT/XLA runtime error back to its cause: `jitlint explain-error` and the pytest
plugin's "jitlint" section.

parse.py reads the log, match.py holds the error -> rules table and picks the finding,
frames.py tells the user's frames from installed code, explainer.py lints the user's files
and explains (or says why it cannot), command.py is the command line, pytest_section.py the
pytest plugin's part. Nothing here imports jax, TensorFlow or NumPy.
"""
