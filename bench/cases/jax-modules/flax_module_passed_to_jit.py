# source: https://github.com/google/flax/issues/853
# framework: jax
# shape: class
# expect: error TypeError
# hazard: 33 JIT111 a linen Module instance is passed to a non-static parameter of the jitted eval_step
"""Evaluation of a linen classifier; the module object is passed through jit."""
import flax.linen as nn
import jax
import jax.numpy as jnp


class Classifier(nn.Module):
    num_classes: int

    @nn.compact
    def __call__(self, x):
        return nn.Dense(self.num_classes)(x)


def compute_metrics(logits, labels):
    loss = -jnp.mean(jnp.take_along_axis(jax.nn.log_softmax(logits), labels[:, None], axis=1))
    accuracy = jnp.mean(jnp.argmax(logits, -1) == labels)
    return {"loss": loss, "accuracy": accuracy}


@jax.jit
def eval_step(model, params, batch):
    logits = model.apply({"params": params}, batch["x"])
    return compute_metrics(logits, batch["y"])


def eval_model(model, params, batch):
    metrics = eval_step(model, params, batch)
    summary = jax.tree_util.tree_map(lambda v: v.item(), jax.device_get(metrics))
    return summary["loss"], summary["accuracy"]


model = Classifier(num_classes=3)
batch = {"x": jnp.ones((4, 5)), "y": jnp.array([0, 1, 2, 1])}
params = model.init(jax.random.PRNGKey(0), batch["x"])["params"]
print(eval_model(model, params, batch))
