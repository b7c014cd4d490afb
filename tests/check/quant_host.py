# expect: clean
"""Int8 weights quantised on the host, dequantised per block in the kernel.

The weight's shape and dtype are known only through host code: a per-column
scale (a keepdims reduction), a division, rounding, clipping and a cast.
"""
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

ROWS, COLS = 2048, 1024


def scale_kernel(w_ref, s_ref, o_ref):
    o_ref[...] = (w_ref[...].astype(jnp.float32) * s_ref[...]).astype(o_ref.dtype)


def dequant(w, s, block_cols=256):
    return pl.pallas_call(
        scale_kernel,
        grid=(ROWS // 256, pl.cdiv(COLS, block_cols)),
        in_specs=[pl.BlockSpec((256, block_cols), lambda i, j: (i, j)),
                  pl.BlockSpec((1, block_cols), lambda i, j: (0, j))],
        out_specs=pl.BlockSpec((256, block_cols), lambda i, j: (i, j)),
        out_shape=jax.ShapeDtypeStruct((ROWS, COLS), jnp.bfloat16),
    )(w, s)


def quantise(w32):
    s = jnp.max(jnp.abs(w32), axis=0, keepdims=True) / 127.0
    return jnp.clip(jnp.round(w32 / s), -127, 127).astype(jnp.int8), s


w_q, scale = quantise(jnp.ones((ROWS, COLS), jnp.float32))
out = dequant(w_q, scale)
