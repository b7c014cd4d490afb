# expect: L010@15 L010@15 L011@15
"""Matmul for GPU on the Pallas Triton backend.

Each program computes one (BLOCK_M, BLOCK_N) output tile, looping over K in
BLOCK_K slices with a float32 accumulator carried by the loop.
"""
import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as pltriton

BLOCK_M = 64
BLOCK_N = 96
BLOCK_K = 32


def _mm_kernel(a_ref, b_ref, o_ref, *, k_steps):
    def body(kk, acc):
        a = a_ref[:, pl.ds(kk * BLOCK_K, BLOCK_K)]
        b = b_ref[pl.ds(kk * BLOCK_K, BLOCK_K), :]
        return acc + pl.dot(a, b)

    acc = jax.lax.fori_loop(0, k_steps, body, jnp.zeros((BLOCK_M, BLOCK_N), jnp.float32))
    o_ref[...] = acc.astype(o_ref.dtype)


def matmul(a, b):
    m, k = a.shape
    _, n = b.shape
    return pl.pallas_call(
        functools.partial(_mm_kernel, k_steps=k // BLOCK_K),
        out_shape=jax.ShapeDtypeStruct((m, n), a.dtype),
        grid=(pl.cdiv(m, BLOCK_M), pl.cdiv(n, BLOCK_N)),
        in_specs=[
            pl.BlockSpec((BLOCK_M, k), lambda i, j: (i, 0)),
            pl.BlockSpec((k, BLOCK_N), lambda i, j: (0, j)),
        ],
        out_specs=pl.BlockSpec((BLOCK_M, BLOCK_N), lambda i, j: (i, j)),
        compiler_params=pltriton.CompilerParams(num_warps=4, num_stages=3),
    )(a, b)


if __name__ == "__main__":
    a = jnp.ones((1024, 512), jnp.float16)
    b = jnp.ones((512, 2048), jnp.float16)
    print(matmul(a, b).sum())
