# source: https://github.com/yaaman18/llm-spontaneous-action-artifact
# framework: jax
# shape: multi-file
# expect: error TypeError
# hazard: temporal.py:20 JIT103 `depth` is an int field of the config eqx.Module, which the jitted factory receives as a traced pytree
# hazard: temporal.py:22 JIT103 `horizon` is another traced config field used as a shape
# hazard: temporal.py:21 JIT103 `depth` (traced config field) used as the shape of the retention weights
"""Creates the temporal processor through the jitted factory (adapted from the
enactive-consciousness framework; see the seed's README)."""
import jax

from .config import TemporalConfig
from .factory import create_temporal_processor


def main():
    config = TemporalConfig()
    processor = create_temporal_processor(config, 32, jax.random.PRNGKey(0))
    print(type(processor).__name__)


main()
