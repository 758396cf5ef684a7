"""Objective base class: every objective is a pytree, its static attributes
go into the treedef and everything else is data."""
import jax
import jax.numpy as jnp


class _Objective:
    _static_attrs = ["_name", "_built"]

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        jax.tree_util.register_pytree_node_class(cls)

    def tree_flatten(self):
        dynamic = {k: v for k, v in self.__dict__.items() if k not in self._static_attrs}
        static = tuple((k, self.__dict__[k]) for k in self._static_attrs if k in self.__dict__)
        return (dynamic,), static

    @classmethod
    def tree_unflatten(cls, aux_data, children):
        obj = cls.__new__(cls)
        obj.__dict__.update(children[0])
        obj.__dict__.update(dict(aux_data))
        return obj

    @property
    def constants(self):
        return self._constants

    def build(self):
        self._built = True

    @jax.jit
    def compute_scaled_error(self, x, constants=None):
        if constants is None:
            constants = self.constants
        f = self.compute(x, constants)
        return f / self._normalization


class ObjectiveFunction:
    def __init__(self, objective):
        self.objective = objective

    def build(self):
        self.objective.build()

    def x(self, n):
        return jnp.linspace(0.1, 1.0, n)

    def compute_scaled_error(self, x):
        return self.objective.compute_scaled_error(x)
