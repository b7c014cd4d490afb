# expect: S005@28
"""Ring all-gather across the devices of a 1-D mesh, as a TPU kernel.

Each device owns one shard. In step s it forwards the shard it received
last to its right neighbour with a remote DMA into the neighbour's output
slot, while receiving the next one from its left. A barrier handshake with
both neighbours comes first, so nobody writes into a device that has not
entered the kernel yet.
"""
import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from jax.experimental.shard_map import shard_map
from jax.sharding import Mesh, PartitionSpec as P

AXIS = "x"


def _ring_kernel(x_ref, out_ref, send_sem, recv_sem, copy_sem, *, num_devices):
    me = jax.lax.axis_index(AXIS)
    right = jax.lax.rem(me + 1, num_devices)
    left = jax.lax.rem(me - 1 + num_devices, num_devices)

    barrier = pltpu.get_barrier_semaphore()
    pl.semaphore_signal(barrier, device_id=(left,), device_id_type=pltpu.DeviceIdType.MESH)
    pl.semaphore_signal(barrier, device_id=(right,), device_id_type=pltpu.DeviceIdType.MESH)

    local = pltpu.make_async_copy(x_ref, out_ref.at[me], copy_sem)
    local.start()
    local.wait()

    def step(s, carry):
        slot = jax.lax.rem(me - s + num_devices, num_devices)
        copy = pltpu.make_async_remote_copy(
            src_ref=out_ref.at[slot],
            dst_ref=out_ref.at[slot],
            send_sem=send_sem,
            recv_sem=recv_sem,
            device_id=(right,),
            device_id_type=pltpu.DeviceIdType.MESH,
        )
        copy.start()
        copy.wait()
        return carry

    jax.lax.fori_loop(0, num_devices - 1, step, 0)


def ring_allgather(x, mesh):
    num_devices = mesh.shape[AXIS]
    shard_rows, cols = x.shape[0] // num_devices, x.shape[1]

    def per_device(shard):
        return pl.pallas_call(
            functools.partial(_ring_kernel, num_devices=num_devices),
            out_shape=jax.ShapeDtypeStruct((num_devices, shard_rows, cols), shard.dtype),
            in_specs=[pl.BlockSpec(memory_space=pltpu.ANY)],
            out_specs=pl.BlockSpec(memory_space=pltpu.ANY),
            scratch_shapes=[pltpu.SemaphoreType.DMA, pltpu.SemaphoreType.DMA,
                            pltpu.SemaphoreType.DMA],
            compiler_params=pltpu.CompilerParams(collective_id=0),
        )(shard)

    return shard_map(per_device, mesh=mesh, in_specs=P(AXIS), out_specs=P(None, AXIS),
                     check_rep=False)(x)


if __name__ == "__main__":
    devices = jax.devices()
    mesh = Mesh(devices, (AXIS,))
    x = jnp.arange(len(devices) * 8 * 128, dtype=jnp.float32).reshape(len(devices) * 8, 128)
    print(ring_allgather(x, mesh).shape)
