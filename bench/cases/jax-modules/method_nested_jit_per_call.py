# source: https://github.com/jax-ml/jax/issues/4645
# framework: jax
# shape: class
# expect: observed traces=3
# hazard: 30 JIT113 a `@jax.jit` inner function is defined inside the method, so every call jits (and traces) a new function
"""An agent whose action method defines and jits a helper on every call."""
import jax
import jax.numpy as jnp
from jax import monitoring

TRACES = {}


def _count_traces(event, duration, fun_name=None, **kwargs):
    if event == "/jax/core/compile/jaxpr_trace_duration":
        TRACES[fun_name] = TRACES.get(fun_name, 0) + 1


monitoring.register_event_duration_secs_listener(_count_traces)


class GreedyAgent:
    def __init__(self, weights):
        self.weights = weights

    def net_apply(self, params, obs):
        return obs @ params

    def take_action(self, obs):
        @jax.jit
        def _take_action(params, obs):
            logits = self.net_apply(params, obs)
            probs = jax.nn.softmax(logits)
            top2 = jnp.sort(probs)[-2:]
            return jnp.argmax(logits), top2[1] - top2[0]

        return _take_action(self.weights, obs)


agent = GreedyAgent(jnp.eye(4))
for k in range(3):
    action, conf = agent.take_action(jnp.arange(4.0) * (k + 1))
print(action, conf)
print(f"observed: traces={TRACES.get('_take_action', 0)}")
