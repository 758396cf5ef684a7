# source: https://docs.jax.dev/en/latest/101/state.html
# framework: jax
# shape: class
# expect: observed count=1
# hazard: 15 JIT107 the attribute update runs once, at trace time; the compiled count() always returns the traced-in value
"""A counter object whose count method is jitted for speed."""
import jax


class Counter:
    def __init__(self):
        self.n = 0

    def count(self):
        self.n += 1
        return self.n

    def reset(self):
        self.n = 0


counter = Counter()
fast_count = jax.jit(counter.count)
for _ in range(3):
    value = fast_count()
print(f"observed: count={int(value)}")
