# expect: N001@35
"""Legal idioms the checker once got wrong, each a small TPU kernel.

A test class whose methods (run by a test framework, not by this file)
build kernels through self.pallas_call, an interpret-mode kernel (no
Mosaic tiles), a copy started in one kernel and waited in another (the
semaphore is an output), an accumulator filled by a DMA, outputs aliased
to inputs (a dict with int keys), a vmapped kernel (the block is one rank
below the batched array) and a traced-size DMA window.
"""
import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def keep_decorator(cls):
    return cls


@keep_decorator
class KernelBase:
    INTERPRET = False

    def pallas_call(self, *args, **kwargs):
        return pl.pallas_call(*args, **kwargs, interpret=self.INTERPRET)


class MatmulCase(KernelBase):

    def test_accumulate(self):
        def mm_kernel(x_ref, y_ref, o_ref, acc_ref):
            acc_ref[...] += jnp.dot(x_ref[...], y_ref[...],
                                    preferred_element_type=jnp.float32)

            @pl.when(pl.program_id(2) == pl.num_programs(2) - 1)
            def _():
                o_ref[...] = acc_ref[...].astype(o_ref.dtype)

        x = jnp.ones((512, 1024), jnp.bfloat16)
        y = jnp.ones((1024, 512), jnp.bfloat16)
        return self.pallas_call(
            mm_kernel,
            out_shape=jax.ShapeDtypeStruct((512, 512), jnp.bfloat16),
            grid=(2, 2, 4),
            in_specs=[pl.BlockSpec((256, 256), lambda i, j, k: (i, k)),
                      pl.BlockSpec((256, 256), lambda i, j, k: (k, j))],
            out_specs=pl.BlockSpec((256, 256), lambda i, j, k: (i, j)),
            scratch_shapes=[pltpu.VMEM((256, 256), jnp.float32)],
        )(x, y)


def small_blocks_interpreted(x):
    # (4, 128) blocks do not tile on TPU; in interpret mode no compiler sees them
    def add_one(x_ref, o_ref):
        o_ref[...] = x_ref[...] + 1.0

    return pl.pallas_call(
        add_one,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(4,),
        in_specs=[pl.BlockSpec((4, 128), lambda i: (i, 0))],
        out_specs=pl.BlockSpec((4, 128), lambda i: (i, 0)),
        interpret=True,
    )(x)


def copy_start(x):
    # the copy is waited by copy_done: its semaphore is returned
    def start_kernel(x_hbm, o_hbm, sem):
        pltpu.make_async_copy(x_hbm, o_hbm, sem).start()

    return pl.pallas_call(
        start_kernel,
        out_shape=(jax.ShapeDtypeStruct(x.shape, x.dtype), pltpu.SemaphoreType.DMA(())),
        in_specs=[pl.BlockSpec(memory_space=pltpu.ANY)],
        out_specs=(pl.BlockSpec(memory_space=pltpu.ANY),
                   pl.BlockSpec(memory_space=pltpu.SEMAPHORE)),
    )(x)


def scaled_copy(x):
    # the scratch is filled by a DMA, then updated in place
    def kernel(x_hbm, o_ref, buf, sem):
        copy = pltpu.make_async_copy(x_hbm, buf, sem)
        copy.start()
        copy.wait()
        buf[...] = buf[...] * 2.0
        o_ref[...] = buf[...]

    return pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct((256, 512), jnp.float32),
        in_specs=[pl.BlockSpec(memory_space=pltpu.ANY)],
        scratch_shapes=[pltpu.VMEM((256, 512), jnp.float32), pltpu.SemaphoreType.DMA],
    )(x)


def add_in_place(x, y):
    # both outputs alias the inputs: they start from the inputs' values
    @functools.partial(
        pl.pallas_call,
        out_shape=(jax.ShapeDtypeStruct((256, 512), jnp.float32),) * 2,
        input_output_aliases={0: 0, 1: 1},
    )
    def kernel(_x, _y, x_ref, y_ref):
        x_ref[...] += y_ref[...]
        y_ref[...] += 1.0

    return kernel(x, y)


def batched_rows(xs):
    # vmap strips the batch axis: each kernel sees a (256, 512) array
    def double(x_ref, o_ref):
        o_ref[...] = x_ref[...] * 2.0

    one = pl.pallas_call(
        double,
        out_shape=jax.ShapeDtypeStruct((256, 512), jnp.float32),
        grid=(2,),
        in_specs=[pl.BlockSpec((128, 512), lambda i: (i, 0))],
        out_specs=pl.BlockSpec((128, 512), lambda i: (i, 0)),
    )
    return jax.vmap(one)(xs)


def gather_prefix(n, x):
    # a DMA window may have a traced size (a load may not)
    def kernel(n_ref, x_hbm, o_hbm, sem):
        rows = n_ref[0]
        pltpu.make_async_copy(x_hbm.at[pl.ds(0, rows)], o_hbm.at[pl.ds(0, rows)], sem).start()
        pltpu.make_async_copy(x_hbm.at[pl.ds(0, rows)], o_hbm.at[pl.ds(0, rows)], sem).wait()

    return pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        in_specs=[pl.BlockSpec(memory_space=pltpu.SMEM), pl.BlockSpec(memory_space=pltpu.ANY)],
        out_specs=pl.BlockSpec(memory_space=pltpu.ANY),
        scratch_shapes=[pltpu.SemaphoreType.DMA],
    )(n, x)


if __name__ == "__main__":
    small_blocks_interpreted(jnp.ones((16, 128), jnp.float32))
    copy_start(jnp.ones((256, 512), jnp.float32))
    scaled_copy(jnp.ones((256, 512), jnp.float32))
    add_in_place(jnp.ones((256, 512), jnp.float32), jnp.ones((256, 512), jnp.float32))
    batched_rows(jnp.ones((3, 256, 512), jnp.float32))
    gather_prefix(jnp.array([128], jnp.int32), jnp.ones((256, 512), jnp.float32))
