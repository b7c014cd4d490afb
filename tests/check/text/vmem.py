"""Blocks far too big for the default scoped VMEM limit."""
import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

BM = 2048
BK = 2048
BN = 2048
LIMIT = 200 * 1024 * 1024


def kernel(x_ref, y_ref, o_ref, acc_ref):
    @pl.when(pl.program_id(2) == 0)
    def _():
        acc_ref[...] = jnp.zeros_like(acc_ref)

    acc_ref[...] += jnp.dot(x_ref[...], y_ref[...], preferred_element_type=jnp.float32)
    o_ref[...] = acc_ref[...]


def big_matmul(x, y):
    m, k = x.shape
    n = y.shape[1]
    return pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct((m, n), jnp.float32),
        grid=(m // BM, n // BN, k // BK),
        in_specs=[pl.BlockSpec((BM, BK), lambda i, j, kk: (i, kk)),
                  pl.BlockSpec((BK, BN), lambda i, j, kk: (kk, j))],
        out_specs=pl.BlockSpec((BM, BN), lambda i, j, kk: (i, j)),
        scratch_shapes=[pltpu.VMEM((BM, BN), jnp.float32)],
        compiler_params=pltpu.CompilerParams(
            dimension_semantics=("parallel", "parallel", "arbitrary"),
            vmem_limit_bytes=LIMIT),
    )(x, y)


x = jnp.zeros((8192, 8192), jnp.float32)
big_matmul(x, x)
