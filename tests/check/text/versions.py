"""A kernel that signals and waits on a semaphore, spelled two ways (pl. is new, pltpu. the old)."""
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def kernel(x_ref, o_ref, sem):
    pl.semaphore_signal(sem, 1)
    pltpu.semaphore_wait(sem, 1)
    total = jnp.sum(x_ref[...].astype(jnp.int32))
    o_ref[...] = jnp.full(o_ref.shape, total, jnp.int32)


def run(x):
    return pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct((8, 128), jnp.int32),
        scratch_shapes=[pltpu.SemaphoreType.REGULAR],
    )(x)


run(jnp.ones((8, 128), jnp.int32))
