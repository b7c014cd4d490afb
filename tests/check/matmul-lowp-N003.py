# expect: N003@25
"""Blocked matmul on TPU with a float32 accumulator in VMEM scratch.

The reduction runs over the last grid axis ("arbitrary"); the accumulator
is zeroed on its first step and written out on its last.
"""
import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

BLOCK_M = 256
BLOCK_N = 256


def _matmul_kernel(a_ref, b_ref, out_ref, acc_ref, *, k_steps):
    k = pl.program_id(2)

    @pl.when(k == 0)
    def _zero():
        acc_ref[...] = jnp.zeros_like(acc_ref)

    acc_ref[...] += jnp.dot(
        a_ref[...], b_ref[...]
    )

    @pl.when(k == k_steps - 1)
    def _store():
        out_ref[...] = acc_ref[...].astype(out_ref.dtype)


@functools.partial(jax.jit, static_argnames=("bm", "bk", "bn"))
def matmul(a, b, bm=BLOCK_M, bk=512, bn=BLOCK_N):
    m, k = a.shape
    k2, n = b.shape
    assert k == k2
    k_steps = pl.cdiv(k, bk)
    return pl.pallas_call(
        functools.partial(_matmul_kernel, k_steps=k_steps),
        out_shape=jax.ShapeDtypeStruct((m, n), a.dtype),
        grid=(m // bm, n // bn, k_steps),
        in_specs=[
            pl.BlockSpec((bm, bk), lambda i, j, kk: (i, kk)),
            pl.BlockSpec((bk, bn), lambda i, j, kk: (kk, j)),
        ],
        out_specs=pl.BlockSpec((bm, bn), lambda i, j, kk: (i, j)),
        scratch_shapes=[pltpu.VMEM((bm, bn), jnp.float32)],
        compiler_params=pltpu.CompilerParams(
            dimension_semantics=("parallel", "parallel", "arbitrary")
        ),
    )(a, b)


def main():
    key_a, key_b = jax.random.split(jax.random.PRNGKey(0))
    a = jax.random.normal(key_a, (2048, 4096), dtype=jnp.bfloat16)
    b = jax.random.normal(key_b, (4096, 1024), dtype=jnp.bfloat16)
    out = matmul(a, b)
    ref = jnp.dot(a, b, preferred_element_type=jnp.float32).astype(a.dtype)
    print(jnp.max(jnp.abs(out.astype(jnp.float32) - ref.astype(jnp.float32))))


if __name__ == "__main__":
    main()
