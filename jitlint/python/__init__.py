"""Framework-neutral Python: the tree walker and other helpers that know nothing of jax or TF."""
