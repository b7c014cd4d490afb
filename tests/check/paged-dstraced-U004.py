# expect: U004@52
"""Decode-time paged attention for TPU with manual double-buffered DMA.

The KV cache stays in HBM (memory space ANY) as pages; a page table and
the sequence lengths arrive by scalar prefetch. Each grid step handles one
sequence: it copies the K/V pages it needs into a two-slot VMEM buffer,
fetching page i+1 while attending over page i.
"""
import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

PAGE_SIZE = 16
NUM_HEADS = 8
HEAD_DIM = 128


def _paged_kernel(lengths_ref, table_ref, q_ref, k_hbm, v_hbm, o_ref,
                  k_buf, v_buf, sems, *, page_size):
    seq = pl.program_id(0)
    length = lengths_ref[seq]
    n_pages = pl.cdiv(length, page_size)

    def page_copies(page, slot):
        phys = table_ref[seq, page]
        k_copy = pltpu.make_async_copy(k_hbm.at[phys], k_buf.at[slot], sems.at[0, slot])
        v_copy = pltpu.make_async_copy(v_hbm.at[phys], v_buf.at[slot], sems.at[1, slot])
        return k_copy, v_copy

    first_k, first_v = page_copies(0, 0)
    first_k.start()
    first_v.start()
    q = q_ref[0].astype(jnp.float32)

    def attend(page, carry):
        m_prev, l_prev, acc_prev = carry
        slot = page % 2

        @pl.when(page + 1 < n_pages)
        def _prefetch():
            next_k, next_v = page_copies(page + 1, 1 - slot)
            next_k.start()
            next_v.start()

        cur_k, cur_v = page_copies(page, slot)
        cur_k.wait()
        cur_v.wait()
        k = k_buf[slot].astype(jnp.float32)
        v = v_buf[slot, pl.ds(0, length - page * page_size)].astype(jnp.float32)
        s = jax.lax.dot_general(q, k, (((1,), (1,)), ((), ())),
                                preferred_element_type=jnp.float32)
        pos = page * page_size + jax.lax.broadcasted_iota(jnp.int32, s.shape, 1)
        s = jnp.where(pos < length, s, -1e30)
        m_new = jnp.maximum(m_prev, jnp.max(s, axis=-1, keepdims=True))
        alpha = jnp.exp(m_prev - m_new)
        p = jnp.exp(s - m_new)
        l_new = alpha * l_prev + jnp.sum(p, axis=-1, keepdims=True)
        acc_new = alpha * acc_prev + jnp.dot(p, v, preferred_element_type=jnp.float32)
        return m_new, l_new, acc_new

    init = (
        jnp.full((NUM_HEADS, 1), -1e30, jnp.float32),
        jnp.zeros((NUM_HEADS, 1), jnp.float32),
        jnp.zeros((NUM_HEADS, HEAD_DIM), jnp.float32),
    )
    _, l_fin, acc_fin = jax.lax.fori_loop(0, n_pages, attend, init)
    o_ref[0] = (acc_fin / l_fin).astype(o_ref.dtype)


def paged_attention(q, k_pages, v_pages, lengths, page_table):
    batch = q.shape[0]
    kernel = functools.partial(_paged_kernel, page_size=PAGE_SIZE)
    grid_spec = pltpu.PrefetchScalarGridSpec(
        num_scalar_prefetch=2,
        grid=(batch,),
        in_specs=[
            pl.BlockSpec((1, NUM_HEADS, HEAD_DIM), lambda b, lens, tab: (b, 0, 0)),
            pl.BlockSpec(memory_space=pltpu.ANY),
            pl.BlockSpec(memory_space=pltpu.ANY),
        ],
        out_specs=pl.BlockSpec((1, NUM_HEADS, HEAD_DIM), lambda b, lens, tab: (b, 0, 0)),
        scratch_shapes=[
            pltpu.VMEM((2, PAGE_SIZE, HEAD_DIM), k_pages.dtype),
            pltpu.VMEM((2, PAGE_SIZE, HEAD_DIM), v_pages.dtype),
            pltpu.SemaphoreType.DMA((2, 2)),
        ],
    )
    return pl.pallas_call(
        kernel,
        grid_spec=grid_spec,
        out_shape=jax.ShapeDtypeStruct(q.shape, q.dtype),
        compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel",)),
    )(lengths, page_table, q, k_pages, v_pages)


if __name__ == "__main__":
    batch, pages_per_seq, num_pages = 4, 8, 64
    q = jnp.ones((batch, NUM_HEADS, HEAD_DIM), jnp.bfloat16)
    k_pages = jnp.ones((num_pages, PAGE_SIZE, HEAD_DIM), jnp.bfloat16)
    v_pages = jnp.ones((num_pages, PAGE_SIZE, HEAD_DIM), jnp.bfloat16)
    lengths = jnp.array([100, 17, 128, 5], jnp.int32)
    table = jnp.arange(batch * pages_per_seq, dtype=jnp.int32).reshape(batch, pages_per_seq)
    print(paged_attention(q, k_pages, v_pages, lengths, table))
