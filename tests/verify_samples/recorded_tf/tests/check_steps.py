import tensorflow as tf
from tfpkg.steps import step


def test_step():
    assert step(tf.constant([1.0, 2.0]), 2.0).numpy().tolist() == [2.0, 4.0]
