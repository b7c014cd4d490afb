"""Blocks too big for a GPU block's shared memory, on both GPU backends."""
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu
from jax.experimental.pallas import triton as pltriton


def add_kernel(x_ref, y_ref, o_ref):
    o_ref[...] = x_ref[...] + y_ref[...]


def triton_add(x, y):
    return pl.pallas_call(
        add_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(4, 4),
        in_specs=[pl.BlockSpec((256, 256), lambda i, j: (i, j)),
                  pl.BlockSpec((256, 256), lambda i, j: (i, j))],
        out_specs=pl.BlockSpec((256, 256), lambda i, j: (i, j)),
        compiler_params=pltriton.CompilerParams(num_warps=8, num_stages=4),
    )(x, y)


def mosaic_gpu_add(x, y):
    return pl.pallas_call(
        add_kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(4, 4),
        in_specs=[pl.BlockSpec((256, 256), lambda i, j: (i, j)),
                  pl.BlockSpec((256, 256), lambda i, j: (i, j))],
        out_specs=pl.BlockSpec((256, 256), lambda i, j: (i, j)),
        compiler_params=plgpu.CompilerParams(max_concurrent_steps=2),
    )(x, y)


x = jnp.ones((1024, 1024), jnp.float32)
triton_add(x, x)
mosaic_gpu_add(x, x)
