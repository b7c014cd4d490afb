# expect: U002@21
"""Row softmax over the last axis, one block of rows per grid step (TPU).

The max is subtracted before exp so that large logits cannot overflow;
the sum is taken in float32 whatever the input dtype.
"""
import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

ROWS = 4096
COLS = 2048


def softmax_kernel(x_ref, o_ref):
    x = x_ref[...].astype(jnp.float32)
    row_max = jnp.max(x, axis=-1, keepdims=True)
    e = jnp.exp(x - row_max)
    total = jnp.sum(e, axis=-1, keepdims=True, dtype=jnp.uint32)
    o_ref[...] = (e / total).astype(o_ref.dtype)


def softmax(x, block_rows=64):
    rows, cols = x.shape
    return pl.pallas_call(
        softmax_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(pl.cdiv(rows, block_rows),),
        in_specs=[pl.BlockSpec((block_rows, cols), lambda i: (i, 0))],
        out_specs=pl.BlockSpec((block_rows, cols), lambda i: (i, 0)),
        compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel",)),
    )(x)


if __name__ == "__main__":
    x = jnp.asarray(np.random.randn(ROWS, COLS), dtype=jnp.bfloat16)
    got = softmax(x)
    want = jax.nn.softmax(x.astype(jnp.float32), axis=-1)
    np.testing.assert_allclose(np.asarray(got, np.float32), np.asarray(want), atol=2e-2)
