"""The runtime verifier: prove with the real compilers that fixes compile and behave the same.

Everything here except `worker.py`, `instances.py` and `compare.py` runs in jitlint's own
process and imports no jax, tensorflow or numpy. The worker runs in a subprocess per module
(`python -m jitlint.verify.worker JOB RESULT`), so user code that crashes, hangs, prints or
exits cannot take jitlint down.

    plan.py      which functions and methods a fix touched, how each is compiled, which
                 hunks are its, helpers verified through callers in other files
    inputs.py    where example inputs come from (config, recorded specs, annotations)
    command.py   the two ways in: `--fix --verify` and `jitlint verify`
    runner.py    the job for one worker, subprocesses with a timeout, temporary directories
    worker.py    (subprocess) import original and fixed side by side, compile, compare
    instances.py (subprocess) original and fixed instances for methods, and how each
                 framework compiles and calls a method
    compare.py   (subprocess) output leaves: shapes, dtypes, tolerances
    results.py   statuses and what each result says
    report.py    text and JSON output
    apply.py     what is written: failed functions' hunks are reverted
"""
