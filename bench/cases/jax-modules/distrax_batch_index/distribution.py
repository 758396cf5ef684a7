"""Base class for batched distributions."""
import numpy as np


def to_batch_shape_index(batch_shape, index):
    """Turns an arbitrary index into an index over the batch dimensions."""
    if not isinstance(index, tuple):
        index = (index,)
    new_index = [x[index] for x in np.indices(batch_shape)]
    return tuple(new_index)


class Distribution:
    @property
    def batch_shape(self):
        raise NotImplementedError

    def __getitem__(self, index):
        raise NotImplementedError
