# source: https://github.com/joeryjoery/jit_env/issues/24
# framework: jax
# shape: class
# expect: ok
"""Environment parameters as a flax.struct dataclass: the option fields are
marked pytree_node=False, so under jit they are Python values usable in
`if`, `range` and slicing."""
import flax.struct
import jax
import jax.numpy as jnp


@flax.struct.dataclass
class EnvParams:
    reward_scale: jax.Array
    view_size: int = flax.struct.field(pytree_node=False, default=3)
    max_steps: int = flax.struct.field(pytree_node=False, default=4)
    sparse_reward: bool = flax.struct.field(pytree_node=False, default=False)


class GridEnv:
    def observe(self, grid, params):
        return grid[: params.view_size, : params.view_size]

    def reward(self, grid, params):
        if params.sparse_reward:
            return jnp.where(grid.sum() > 0, 1.0, 0.0)
        return params.reward_scale * grid.mean()

    def rollout(self, grid, params):
        total = 0.0
        for _ in range(params.max_steps):
            grid = jnp.roll(grid, 1, axis=0)
            total = total + self.reward(self.observe(grid, params), params)
        return total


env = GridEnv()
rollout = jax.jit(env.rollout)
print(rollout(jnp.eye(5), EnvParams(reward_scale=jnp.float32(2.0))))
print(rollout(jnp.eye(5), EnvParams(reward_scale=jnp.float32(2.0), sparse_reward=True)))
