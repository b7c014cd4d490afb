"""A wrapper nothing in the file calls: the operand and one block size are open."""
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl


def scale_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 2.0


def scale(x, block_cols, block_rows=256):
    rows, cols = x.shape
    return pl.pallas_call(
        scale_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(rows // block_rows, pl.cdiv(cols, block_cols)),
        in_specs=[pl.BlockSpec((block_rows, block_cols), lambda i, j: (i, j))],
        out_specs=pl.BlockSpec((block_rows, block_cols), lambda i, j: (i, j)),
    )(x)
