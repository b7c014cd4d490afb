# SPDX-License-Identifier: MIT
"""Line templates for the Pallas inputs of `make bench` (gen_log.py).

A Pallas project's CI log is full of what the rules' context evidence
matches on purpose: pytest lines of tests/pallas/..., tracebacks through
jax/_src/pallas/... frames with kernel code in them, Mosaic IR dumps
(`vector.load ... #tpu.memory_space<vmem>`), HLO with XLA fusions and
tpu_custom_call ops, jax's own debug logging. These templates render such
lines; gen_log.py mixes them with the ordinary CI lines of big.log.

Every line here is an ordinary line: none of them is a failure a rule
names (gen_log.py checks that no specific rule matches one). Each template
takes a random.Random and returns one pool element: a line, or a small
block of lines, without the last newline.
"""

OPS = ["matmul", "flash_attention", "paged_attention", "ragged_dot", "rms_norm", "softmax",
       "layer_norm", "gmm", "splash_attention", "rope", "cumsum", "topk", "conv2d", "reduce_sum"]
DTYPES = ["bf16", "f32", "int8", "f16", "fp8_e4m3"]
JNP = {"bf16": "bfloat16", "f32": "float32", "int8": "int8", "f16": "float16", "fp8_e4m3": "float8_e4m3fn"}
IR_DTYPES = ["f32", "bf16", "i32", "i8"]
TEST_FILES = ["tpu_pallas_test", "pallas_test", "ops_test", "tpu_ops_test", "pallas_vmap_test",
              "tpu_paged_attention_kernel_test", "tpu_flash_attention_test", "gmm_test",
              "tpu_pallas_pipeline_test", "indexing_test", "pallas_jumble_test"]
CLASSES = ["PallasCallTest", "OpsTest", "PallasCallInterpretTest", "MatmulTest", "FlashAttentionTest",
           "PipelineTest", "IndexingTest", "PagedAttentionKernelTest", "GroupedMatmulTest"]
SITE = "/opt/venv/lib/python3.11/site-packages"
# (path under site-packages, function, code line)
JAX_FRAMES = [
    ("jax/_src/pallas/pallas_call.py", "_pallas_call_impl", "return pallas_call_p.bind(*args, **params)"),
    ("jax/_src/pallas/pallas_call.py", "wrapped", "out_flat = pallas_call_p.bind(*dynamic_grid_bounds, *index_args, *rest_args, jaxpr=jaxpr, **kwargs)"),
    ("jax/_src/pallas/mosaic/pallas_call_registration.py", "pallas_call_tpu_lowering_rule", "mosaic_module, _ = lowering.lower_jaxpr_to_module(ctx, jaxpr, grid_mapping, mesh)"),
    ("jax/_src/pallas/mosaic/lowering.py", "lower_jaxpr_to_module", "func_op = lower_jaxpr_to_func(ctx, jaxpr, mosaic_grid_mapping=mosaic_grid_mapping)"),
    ("jax/_src/pallas/mosaic/lowering.py", "jaxpr_subcomp", "ans = lowering_rules[primitive](rule_context, *invals, **eqn.params)"),
    ("jax/_src/pallas/mosaic/pipeline.py", "emit_pipeline", "return pipeline(*refs, scratches=scratches, allocations=allocations)"),
    ("jax/_src/pallas/core.py", "_convert_block_spec_to_block_mapping", "mapping = BlockMapping(block_shape=block_shape, transformed_block_aval=block_aval)"),
    ("jax/_src/interpreters/mlir.py", "jaxpr_subcomp", "ans = lower_per_platform(rule_ctx, str(eqn.primitive), platform_rules, default_rule, eqn.effects, *rule_inputs, **eqn.params)"),
    ("jax/_src/interpreters/mlir.py", "lower_jaxpr_to_fun", "out_vals, tokens_out = jaxpr_subcomp(ctx, jaxpr.jaxpr, name_stack, tokens_in, consts, *args)"),
    ("jax/_src/pjit.py", "_pjit_call_impl_python", "compiled = _resolve_and_lower(args, jaxpr=jaxpr, **params).compile()"),
    ("jax/_src/dispatch.py", "apply_primitive", "outs = fun(*args)"),
    ("jax/_src/traceback_util.py", "reraise_with_filtered_traceback", "return fun(*args, **kwargs)"),
    ("jax/_src/core.py", "bind_with_trace", "return trace.process_primitive(self, args, params)"),
    ("jax/_src/linear_util.py", "call_wrapped", "ans = self.f(*args, **dict(self.params, **kwargs))"),
]
KERNEL_LINES = [
    "o_ref[...] = jnp.dot(x_ref[...], y_ref[...], preferred_element_type=jnp.float32).astype(o_ref.dtype)",
    "acc_ref[...] += jnp.dot(x_ref[...], w_ref[...], preferred_element_type=jnp.float32)",
    "m_prev = m_scratch_ref[...]",
    "pl.when(pl.program_id(2) == 0)(lambda: acc_ref.__setitem__(..., jnp.zeros_like(acc_ref)))",
    "return pl.pallas_call(kernel, grid=grid, in_specs=in_specs, out_specs=out_specs, out_shape=out_shape)(x, y)",
    "in_specs=[pl.BlockSpec((bm, bk), lambda i, j, k: (i, k)), pl.BlockSpec((bk, bn), lambda i, j, k: (k, j))],",
    "scratch_shapes=[pltpu.VMEM((bm, bn), jnp.float32)],",
    "compiler_params=pltpu.CompilerParams(dimension_semantics=(\"parallel\", \"parallel\", \"arbitrary\")),",
    "idx = pl.program_id(0) * block_size + pl.ds(0, block_size)",
]


def _shape(r, rank=2):
    return ",".join(str(r.choice((8, 16, 128, 256, 512, 1024))) for _ in range(rank))


def _test_name(r):
    return "%s_%s_%dx%d" % (r.choice(OPS), r.choice(DTYPES), r.choice((128, 256, 512)), r.choice((128, 256, 512)))


def t_pytest(r):
    k = r.random()
    name = "tests/pallas/%s.py::%s::test_%s" % (r.choice(TEST_FILES), r.choice(CLASSES), _test_name(r))
    if k < 0.85:
        return "%s PASSED%s[%3d%%]" % (name, " " * r.randint(1, 20), r.randint(0, 100))
    if k < 0.95:
        return "%s SKIPPED (Only runs on TPU v5e or newer)%s[%3d%%]" % (name, " " * r.randint(1, 8), r.randint(0, 100))
    return "%s XFAIL (layout inference is slow on this shape)%s[%3d%%]" % (name, " " * r.randint(1, 8), r.randint(0, 100))


def _frame(r, path, func, code):
    return "  File \"%s/%s\", line %d, in %s\n    %s" % (SITE, path, r.randint(40, 3000), func, code)


def t_traceback(r):
    """A test's traceback through Pallas, as pytest or logging prints it for
    an expected exception: user frames with kernel code, then jax's."""
    test = r.choice(TEST_FILES)
    lines = ["Traceback (most recent call last):",
             "  File \"/home/ci/jax/tests/pallas/%s.py\", line %d, in test_%s" % (test, r.randint(40, 2000), _test_name(r)),
             "    out = %s(x, y, block_m=%d, block_n=%d)" % (r.choice(OPS), r.choice((128, 256)), r.choice((128, 256))),
             "  File \"/home/ci/jax/tests/pallas/%s.py\", line %d, in %s_kernel" % (test, r.randint(40, 2000), r.choice(OPS)),
             "    " + r.choice(KERNEL_LINES)]
    for path, func, code in r.sample(JAX_FRAMES, r.randint(3, 7)):
        lines.append(_frame(r, path, func, code))
    ends = ["unittest.case.SkipTest: skipped on this platform (cpu)",
            "KeyError: 'block_shape_%d'" % r.randint(0, 99),
            "StopIteration",
            "jax._src.checkify.JaxRuntimeCheck: expected failure in test_%s (xfail)" % r.choice(OPS)]
    lines.append(r.choice(ends))
    return "\n".join(lines)


def t_mosaic(r):
    """Mosaic MLIR as jax's --xla_mosaic_dump or a test's debug print shows it."""
    d = r.choice(IR_DTYPES)
    a, b = r.choice((8, 16, 128, 256)), r.choice((128, 256, 512))
    k = r.randrange(7)
    if k == 0:
        return "    %%%d = vector.load %%arg%d[%%c0, %%c0] : memref<%dx%dx%s, #tpu.memory_space<vmem>>, vector<%dx%dx%s>" % (
            r.randint(1, 400), r.randint(0, 9), a, b, d, a, b, d)
    if k == 1:
        return "    vector.store %%%d, %%arg%d[%%c0, %%c0] : memref<%dx%dx%s, #tpu.memory_space<vmem>>, vector<%dx%dx%s>" % (
            r.randint(1, 400), r.randint(0, 9), a, b, d, a, b, d)
    if k == 2:
        return "    %%%d = tpu.matmul %%%d, %%%d, %%%d {dimension_numbers = #tpu.dot_dimension_numbers<[1], [0], [0], [1], [0, 0, 1, 1], [], []>} : vector<%dx%dx%s>, vector<%dx%dx%s>, vector<%dx%dxf32> -> vector<%dx%dxf32>" % (
            r.randint(1, 400), r.randint(1, 400), r.randint(1, 400), r.randint(1, 400), a, b, d, b, a, d, a, a, a, a)
    if k == 3:
        return "  func.func @%s_kernel(%%arg0: i32, %%arg1: i32, %%arg2: memref<%dx%dx%s, #tpu.memory_space<vmem>>, %%arg3: memref<%dx%dx%s, #tpu.memory_space<vmem>>) attributes {dimension_semantics = [#tpu.dimension_semantics<parallel>, #tpu.dimension_semantics<arbitrary>], iteration_bounds = array<i64: %d, %d>, scalar_prefetch = 0 : i64, scratch_operands = 1 : i64, tpu.core_type = #tpu.core_type<tc>} {" % (
            r.choice(OPS), a, b, d, a, b, d, r.randint(1, 64), r.randint(1, 64))
    if k == 4:
        return "    %%%d = arith.%s %%%d, %%%d : vector<%dx%dx%s>" % (
            r.randint(1, 400), r.choice(("mulf", "addf", "maximumf", "subf")), r.randint(1, 400), r.randint(1, 400), a, b, d)
    if k == 5:
        return "    %%c%d_%d = arith.constant %d : index" % (r.randint(0, 9), r.randint(0, 9), r.randint(0, 512))
    return "module attributes {stable_mosaic.version = %d : i64} {" % r.randint(3, 11)


def t_hlo(r):
    """HLO after optimizations: XLA's fusions and the kernels' custom calls."""
    d = r.choice(("f32", "bf16", "s32"))
    if r.random() < 0.7:
        return "  %%fusion.%d = %s[%s]{1,0} fusion(%%param.%d, %%copy.%d), kind=k%s, calls=%%fused_computation.%d, metadata={op_name=\"jit(%s)/jit(main)/%s\"}" % (
            r.randint(1, 999), d, _shape(r), r.randint(0, 9), r.randint(0, 99), r.choice(("Loop", "Input", "Output")),
            r.randint(1, 999), r.choice(OPS), r.choice(("add", "mul", "reduce_sum", "convert_element_type")))
    return "  %%custom-call.%d = %s[%s]{1,0} custom-call(%%param.%d, %%param.%d), custom_call_target=\"tpu_custom_call\", api_version=API_VERSION_TYPED_FFI, metadata={op_name=\"jit(%s)/jit(main)/pallas_call\"}" % (
        r.randint(1, 999), d, _shape(r), r.randint(0, 9), r.randint(0, 9), r.choice(OPS))


def t_jaxlog(r):
    """jax's own logging with JAX_LOGGING_LEVEL=DEBUG."""
    k = r.randrange(4)
    if k == 0:
        return "DEBUG:jax._src.dispatch:Finished tracing + transforming %s for pjit in %.6f sec" % (r.choice(OPS), r.random() / 100)
    if k == 1:
        return "DEBUG:jax._src.interpreters.pxla:Compiling %s with global shapes and types [ShapedArray(%s[%s])]. Argument mapping: (UnspecifiedValue,)." % (
            r.choice(OPS), r.choice(("float32", "bfloat16")), _shape(r))
    if k == 2:
        return "DEBUG:jax._src.pallas.mosaic.pallas_call_registration:Lowering %s_kernel for grid (%d, %d) with %d scratch operands" % (
            r.choice(OPS), r.randint(1, 64), r.randint(1, 64), r.randint(0, 4))
    return "DEBUG:jax._src.compiler:PERSISTENT COMPILATION CACHE MISS for 'jit_%s' with key 'jit_%s-%016x'" % (
        r.choice(OPS), r.choice(OPS), r.getrandbits(64))


# (template, weight) for the Pallas-heavy CI log, with gen_log.py's
# ordinary lines ("ordinary") in the rest.
PALLAS_MIX = [(t_pytest, 14), (t_traceback, 3), (t_mosaic, 22), (t_hlo, 10), (t_jaxlog, 8)]
PALLAS_ORDINARY = 43


def failing_test(r, error):
    """What pytest prints for one failing kernel test: the header, the
    traceback through Pallas with the kernel's code, the error line, and
    its line in the summary. About 15 lines, one of them the error."""
    test = r.choice(TEST_FILES)
    name = _test_name(r)
    lines = ["_" * 20 + " %s.test_%s " % (r.choice(CLASSES), name) + "_" * 20,
             "",
             "  File \"/home/ci/jax/tests/pallas/%s.py\", line %d, in test_%s" % (test, r.randint(40, 2000), name),
             "    out = %s(x, y, block_m=%d, block_n=%d)" % (r.choice(OPS), r.choice((128, 256)), r.choice((128, 256))),
             "  File \"/home/ci/jax/tests/pallas/%s.py\", line %d, in %s_kernel" % (test, r.randint(40, 2000), r.choice(OPS)),
             "    " + r.choice(KERNEL_LINES)]
    for path, func, code in r.sample(JAX_FRAMES, r.randint(2, 4)):
        lines.append(_frame(r, path, func, code))
    lines.append(error)
    return "\n".join(lines)
