"""A small regression MLP with dropout."""
import flax.linen as nn


class DNN(nn.Module):
    num_hidden_units1: int
    num_hidden_units2: int
    num_outputs: int
    dropout_rate: float

    @nn.compact
    def __call__(self, x, training):
        x = nn.relu(nn.Dense(self.num_hidden_units1)(x))
        x = nn.Dropout(rate=self.dropout_rate, deterministic=not training)(x)
        x = nn.relu(nn.Dense(self.num_hidden_units2)(x))
        x = nn.Dropout(rate=self.dropout_rate, deterministic=not training)(x)
        return nn.Dense(self.num_outputs)(x)
