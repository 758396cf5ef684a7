# source: https://github.com/yaaman18/llm-spontaneous-action-artifact
# framework: jax
# shape: multi-file
# expect: ok
"""Creates the temporal processor through the filter_jit factory, the working
variant of the enactive-consciousness factory (see the seed's README)."""
import jax

from .config import TemporalConfig
from .factory import create_temporal_processor


def main():
    config = TemporalConfig()
    processor = create_temporal_processor(config, 32, jax.random.PRNGKey(0))
    print(type(processor).__name__, processor.retention_memory.shape)
    print(processor(jax.numpy.ones(32)).shape)


main()
