# source: https://github.com/jax-ml/jax/issues/4645
# framework: jax
# shape: multi-file
# expect: observed traces=3
# hazard: agent.py:14 JIT113 `take_action` defines and jits a helper on every call; an environment loop (not in the library) calls it once per step, so each step traces and compiles again
"""The user's environment loop (excluded from linting by jitlint.toml)."""
import jax.numpy as jnp
from jax import monitoring

from .agent import GreedyAgent

TRACES = {}


def _count_traces(event, duration, fun_name=None, **kwargs):
    if event == "/jax/core/compile/jaxpr_trace_duration":
        TRACES[fun_name] = TRACES.get(fun_name, 0) + 1


monitoring.register_event_duration_secs_listener(_count_traces)

agent = GreedyAgent(jnp.eye(4))
for k in range(3):
    action, conf = agent.take_action(jnp.arange(4.0) * (k + 1))
print(action, conf)
print(f"observed: traces={TRACES.get('_take_action', 0)}")
