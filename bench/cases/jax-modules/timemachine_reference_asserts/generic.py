"""Generic potential descriptions that can produce reference implementations."""
import functools

from .reference import nonbonded_reference


class Nonbonded:
    def __init__(self, num_atoms, beta, cutoff):
        self.num_atoms = num_atoms
        self.beta = beta
        self.cutoff = cutoff

    def to_reference(self):
        return functools.partial(nonbonded_reference, beta=self.beta, cutoff=self.cutoff)
