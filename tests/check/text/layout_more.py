"""Block specs that break the layout rules in the other ways (one per call)."""
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def copy_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...]


def transpose_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...].T


def run(x):
    # L003: memory space ANY takes the whole array, not a window of it
    a = pl.pallas_call(
        copy_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(4,),
        in_specs=[pl.BlockSpec((256, 512), lambda i: (i, 0), memory_space=pltpu.ANY)],
        out_specs=pl.BlockSpec((256, 512), lambda i: (i, 0)),
    )(x)
    # L004: a rank-3 block for a rank-2 array
    b = pl.pallas_call(
        copy_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(4,),
        in_specs=[pl.BlockSpec((1, 256, 512), lambda i: (0, i, 0))],
        out_specs=pl.BlockSpec((256, 512), lambda i: (i, 0)),
    )(x)
    # L006: the index map returns one block index for a rank-2 block
    c = pl.pallas_call(
        copy_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(4,),
        in_specs=[pl.BlockSpec((256, 512), lambda i: (i,))],
        out_specs=pl.BlockSpec((256, 512), lambda i: (i, 0)),
    )(x)
    # L008 (a note): a transpose of the last two dims in the kernel
    d = pl.pallas_call(
        transpose_kernel,
        out_shape=jax.ShapeDtypeStruct((512, 1024), x.dtype),
        grid=(1,),
        in_specs=[pl.BlockSpec((1024, 512), lambda i: (0, 0))],
        out_specs=pl.BlockSpec((512, 1024), lambda i: (0, 0)),
    )(x)
    # L013 (a note without --chip): 32 int8 rows miss the 64-row tile of a
    # chip with 16 sublanes, and only that one
    e = pl.pallas_call(
        copy_kernel,
        out_shape=jax.ShapeDtypeStruct((1024, 512), jnp.int8),
        grid=(32,),
        in_specs=[pl.BlockSpec((32, 512), lambda i: (i, 0))],
        out_specs=pl.BlockSpec((32, 512), lambda i: (i, 0)),
    )(x.astype(jnp.int8))
    return a, b, c, d, e


run(jnp.ones((1024, 512), jnp.float32))
