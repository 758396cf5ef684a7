# source: https://github.com/hoidn/PtychoPINN/blob/a7354bb123e16984fb19553de1789adf9d179f52/docs/findings.md
# framework: tf
# shape: multi-file
# expect: error InvalidArgumentError
# hazard: tf_helper.py:27 JIT203 `tf.print` in Translation.call is traced when offsets arrive complex; the model is compiled with jit_compile=True (PrintV2 has no XLA kernel)
import numpy as np

from .model import build_model


def main():
    n, batch = 16, 8
    rng = np.random.default_rng(0)
    patches = rng.random((batch, n, n, 1)).astype("float32")
    offsets = (rng.normal(size=(batch, 2)) * 2 + 0j).astype("complex64")
    model = build_model(n, "complex64")
    model.fit([patches, offsets], patches, batch_size=4, epochs=1, verbose=0)
    print(model.predict([patches, offsets], verbose=0).shape)


main()
