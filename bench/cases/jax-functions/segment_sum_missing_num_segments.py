# source: https://github.com/jax-ml/jax/issues/6350
# framework: jax
# shape: function
# expect: error ConcretizationTypeError
# hazard: 15 JIT103 segment_sum without `num_segments` inside jit derives the output size from the traced `household_ids`

# Aggregate per-person incomes to households (ids are dense, 0..n-1).
import jax
import jax.numpy as jnp


@jax.jit
def household_income(person_income, household_ids):
    tax = 0.2 * person_income
    net = jax.ops.segment_sum(person_income - tax, household_ids)
    return net


if __name__ == "__main__":
    income = jnp.array([1000.0, 2000.0, 1500.0, 800.0])
    ids = jnp.array([0, 0, 1, 2])
    print(household_income(income, ids))
