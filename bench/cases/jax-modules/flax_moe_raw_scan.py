# source: https://github.com/google/flax/issues/3665
# framework: jax
# shape: class
# expect: error UnexpectedTracerError
# hazard: 32 JIT120 a linen submodule from `setup` called in a raw `jax.lax.scan` body
"""A sparse mixture-of-experts block in flax linen (the report: a Mixtral port in
linen hit the error at a raw `jax.lax.scan` in its model). The router and the expert are
submodules made in `setup`; the loop over the experts' routing weights is a raw
scan whose body calls the expert. Older flax raised JaxTransformError; flax 0.12
creates the expert's weights from scan tracers at `init`, and `apply` fails."""
import flax.linen as nn
import jax
import jax.numpy as jnp


class SparseMoeBlock(nn.Module):
    hidden: int = 8
    num_experts: int = 4

    def setup(self):
        self.router = nn.Dense(self.num_experts, use_bias=False)
        self.expert = nn.Dense(self.hidden)

    def __call__(self, tokens):
        weights = jax.nn.softmax(self.router(tokens), axis=-1)  # tokens, experts

        def add_expert(acc, expert_weight):
            out = self.expert(tokens) * expert_weight[:, None]
            return acc + out, None

        init = jnp.zeros((tokens.shape[0], self.hidden))
        mixed, _ = jax.lax.scan(
            add_expert, init, weights.T
        )
        return mixed


block = SparseMoeBlock()
tokens = jnp.ones((5, 8))
variables = block.init(jax.random.PRNGKey(0), tokens)
print(block.apply(variables, tokens).shape)
