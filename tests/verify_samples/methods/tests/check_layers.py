import tensorflow as tf
from mpkg import layers


def test_project():
    out = layers.Project(4)(tf.ones((2, 3)))
    assert out.shape == (2, 4)
