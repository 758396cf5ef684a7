"""Damped Gauss-Newton refinement of a trajectory under guidance costs."""
import jax
import jax.numpy as jnp


def _residual(traj, target, params):
    data = params.hand_weight * (traj - target)
    smooth = params.smoothness_weight * jnp.diff(traj, axis=0)
    return jnp.concatenate([data.ravel(), smooth.ravel()])


def _optimize(traj, target, params):
    cost_history = jnp.zeros((params.lm_iters,))

    def body(i, carry):
        traj, history = carry
        r = _residual(traj, target, params)
        J = jax.jacfwd(lambda t: _residual(t, target, params))(traj).reshape(r.shape[0], -1)
        step = jnp.linalg.solve(J.T @ J + params.lm_damping * jnp.eye(J.shape[1]), J.T @ r)
        traj = traj - step.reshape(traj.shape)
        return traj, history.at[i].set(jnp.sum(r ** 2))

    return jax.lax.fori_loop(0, params.lm_iters, body, (traj, cost_history))


optimize_trajectory = jax.jit(_optimize)
