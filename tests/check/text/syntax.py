import jax
from jax.experimental import pallas as pl

x = (1 +

def kernel(x_ref, o_ref):
    if x_ref[0] > 0:
        o_ref[...] = x_ref[...]

pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8, 128), jax.numpy.float32))
