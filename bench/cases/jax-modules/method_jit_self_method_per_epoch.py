# source: https://github.com/jax-ml/jax/issues/19570
# framework: jax
# shape: class
# expect: observed traces=3
# hazard: 35 JIT113 `self.update` is a new bound-method object each time, so this jit misses its cache on every epoch
"""A small trainer that jits its own update method inside fit()."""
import jax
import jax.numpy as jnp
from jax import monitoring

TRACES = {}


def _count_traces(event, duration, fun_name=None, **kwargs):
    if event == "/jax/core/compile/jaxpr_trace_duration":
        TRACES[fun_name] = TRACES.get(fun_name, 0) + 1


monitoring.register_event_duration_secs_listener(_count_traces)


class LinearTrainer:
    def __init__(self, lr):
        self.lr = lr
        self.w = jnp.zeros(3)

    def loss(self, w, x, y):
        return jnp.mean((x @ w - y) ** 2)

    def update(self, w, x, y):
        return w - self.lr * jax.grad(self.loss)(w, x, y)

    def fit(self, x, y, epochs):
        for _ in range(epochs):
            step = jax.jit(self.update)
            self.w = step(self.w, x, y)
        return self.w


x = jnp.arange(12.0).reshape(4, 3) / 10
y = x @ jnp.array([1.0, -1.0, 0.5])
trainer = LinearTrainer(lr=0.1)
print(trainer.fit(x, y, epochs=3))
print(f"observed: traces={TRACES.get('update', 0)}")
