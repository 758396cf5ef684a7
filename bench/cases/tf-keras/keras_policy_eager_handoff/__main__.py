# source: https://www.tensorflow.org/guide/keras/writing_a_training_loop_from_scratch
# framework: tf
# shape: multi-file
# expect: ok
# The guide's eager custom loop (a model called under a plain GradientTape, before any
# tf.function), with the model made here and handed to a trainer in another module.
import tensorflow as tf

from .controller import Controller, train_controller


def search(state, controller=None):
    if controller is None:
        controller = Controller()
    train_controller(controller, state, steps=3)
    return state, controller


state, controller = search(tf.ones((1, 3)))
search(state, controller=controller)
