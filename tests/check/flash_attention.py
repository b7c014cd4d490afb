# expect: clean
"""Flash attention forward pass for TPU, one (batch, head) per grid row.

Online softmax: the running max m, the running denominator l and the
unnormalised output acc live in VMEM scratch across the kv grid axis; each
kv step rescales them by exp(m_prev - m_new) before adding its block.
"""
import functools
import math

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

NEG_INF = -1e30


def _flash_kernel(q_ref, k_ref, v_ref, o_ref, m_scr, l_scr, acc_scr, *, scale, kv_steps):
    kv = pl.program_id(2)

    @pl.when(kv == 0)
    def _start():
        m_scr[...] = jnp.full_like(m_scr, NEG_INF)
        l_scr[...] = jnp.zeros_like(l_scr)
        acc_scr[...] = jnp.zeros_like(acc_scr)

    q = q_ref[0]
    k = k_ref[0]
    v = v_ref[0]
    s = jax.lax.dot_general(
        q, k, (((1,), (1,)), ((), ())), preferred_element_type=jnp.float32
    ) * scale

    m_prev = m_scr[...]
    l_prev = l_scr[...]
    m_cur = jnp.max(s, axis=-1, keepdims=True)
    m_new = jnp.maximum(m_prev, m_cur)
    alpha = jnp.exp(m_prev - m_new)
    p = jnp.exp(s - m_new)

    l_scr[...] = alpha * l_prev + jnp.sum(p, axis=-1, keepdims=True)
    pv = jnp.dot(p.astype(v.dtype), v, preferred_element_type=jnp.float32)
    acc_scr[...] = alpha * acc_scr[...] + pv
    m_scr[...] = m_new

    @pl.when(kv == kv_steps - 1)
    def _finish():
        inv = pl.reciprocal(l_scr[...], approx=True)
        o_ref[0] = (acc_scr[...] * inv).astype(o_ref.dtype)


def flash_attention(q, k, v, *, block_q=128, block_kv=256):
    bh, seq_q, head_dim = q.shape
    _, seq_kv, _ = k.shape
    kv_steps = seq_kv // block_kv
    kernel = functools.partial(
        _flash_kernel, scale=1.0 / math.sqrt(head_dim), kv_steps=kv_steps
    )
    return pl.pallas_call(
        kernel,
        grid=(bh, seq_q // block_q, kv_steps),
        in_specs=[
            pl.BlockSpec((1, block_q, head_dim), lambda b, i, j: (b, i, 0)),
            pl.BlockSpec((1, block_kv, head_dim), lambda b, i, j: (b, j, 0)),
            pl.BlockSpec((1, block_kv, head_dim), lambda b, i, j: (b, j, 0)),
        ],
        out_specs=pl.BlockSpec((1, block_q, head_dim), lambda b, i, j: (b, i, 0)),
        out_shape=jax.ShapeDtypeStruct(q.shape, q.dtype),
        scratch_shapes=[
            pltpu.VMEM((block_q, 1), jnp.float32),
            pltpu.VMEM((block_q, 1), jnp.float32),
            pltpu.VMEM((block_q, head_dim), jnp.float32),
        ],
        compiler_params=pltpu.CompilerParams(
            dimension_semantics=("parallel", "parallel", "arbitrary")
        ),
    )(q, k, v)


def reference(q, k, v):
    s = jnp.einsum("bqd,bkd->bqk", q.astype(jnp.float32), k.astype(jnp.float32))
    s = s / math.sqrt(q.shape[-1])
    return jnp.einsum("bqk,bkd->bqd", jax.nn.softmax(s, axis=-1), v.astype(jnp.float32))


if __name__ == "__main__":
    kq, kk, kv_ = jax.random.split(jax.random.PRNGKey(1), 3)
    q = jax.random.normal(kq, (16, 1024, 128), dtype=jnp.bfloat16)
    k = jax.random.normal(kk, (16, 2048, 128), dtype=jnp.bfloat16)
    v = jax.random.normal(kv_, (16, 2048, 128), dtype=jnp.bfloat16)
    out = flash_attention(q, k, v)
    print(jnp.max(jnp.abs(out.astype(jnp.float32) - reference(q, k, v))))
