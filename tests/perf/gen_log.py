#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Deterministic inputs for `make bench` (see docs/performance.md).

Writes into OUT (default build/perf-data):

  big.log          about SIZE bytes (default 1 GiB) of synthetic JAX/XLA CI
                   output: glog and Python-logging lines, "Compiling jit_..."
                   shape lines, HLO and Mosaic IR dumps, handled tracebacks,
                   pytest and pip lines, warnings, progress bars; many of them
                   near-misses (error, failed, vmem, hbm, memory, lowering,
                   exhausted ...). Rare real error lines (1 in ~50,000) are
                   spread through it.
  big-errors.log   those error lines alone, in the same order
  small-2k.log     a ~2 KB pasted error: 16 ordinary lines and one OOM line
  small/           1,000 small CI logs (5-20 KB) in 10 directories: a handful
                   of failure kinds, duplicates of each, some with no failure
  meta.json        sizes, line counts and the expected grep/rg match count

The output depends only on the seed: the same bytes on every machine.
Ordinary lines come from a pool of pre-rendered lines (fast: the big log is
assembled in ~1 MB joins). With --patterns FILE (one PCRE pattern per line,
from `pallas-triage rules export-patterns`) every error template is checked
to match some pattern and a sample of the ordinary lines to match none, so
grep -c / rg -c must report exactly the number of error lines.
"""
import argparse
import json
import os
import random
import re
import sys

SEED = 20250611

# Real failure lines, one per line (taken from the shipped rules' examples).
ERRORS = [
    "jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Ran out of memory in memory space vmem while allocating on stack for %ragged_attention_kernel.7 = bf16[16,8,1024,128]{3,2,1,0:T(16,128)(2,1)} custom-call(%param.3, %param.4, %param.5), custom_call_target=\"tpu_custom_call\"",
    "jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: XLA:TPU compile permanent error. Ran out of memory in memory space vmem. Used 70.51M of 64.00M vmem. Exceeded vmem capacity by 6.51M. custom_call_target=\"tpu_custom_call\"",
    "NotImplementedError: Unimplemented primitive in Pallas TPU lowering for KernelType.TC: cumsum. Please file an issue at https://github.com/jax-ml/jax/issues/new/choose.",
    "ValueError: The Pallas TPU lowering currently requires that the last two dimensions of your block shape are divisible by 8 and 128 respectively, or be equal to the respective dimensions of the overall array. In pallas_call matmul_kernel, got block shape (100, 128), array shape (1000, 1024)",
    "jaxlib.xla_extension.XlaRuntimeError: INTERNAL: Mosaic failed to compile TPU kernel: unsupported shape cast",
    "jax.errors.JaxRuntimeError: INTERNAL: Mosaic failed to compile TPU kernel: Not implemented: Unsupported layout change for 'vector<16xi8>': \"8,{0,0},(1,512),-2\" -> \"8,{0,0},(8,128),-2\"",
    "MLIRError: Failure while executing pass pipeline: error: \"/dot_general\": 'tpu.matmul' op Matmul operand lhs must have a shape divisible by (16, 128), but got: (8, 128)",
    "jax.errors.JaxRuntimeError: INTERNAL: Mosaic failed to compile TPU kernel: E2003: cannot statically prove that index in dimension 1 is a multiple of 128",
    "IndexError: Out-of-bounds block index (2, 5) for output \"o_ref\" in iteration (2, 5) on device 0 (core 0): reading [(slice(16, 24, 1), slice(640, 768, 1))] but output has shape (16, 640).",
    "Mismatched elements: 130942 / 262144 (50%)",
    "Semaphore 3 has non-zero count for 1 (global core 1) at kernel exit: 1",
    "ValueError: dma_wait requires a DMA semaphore, but got a regular semaphore. Use pl.semaphore_wait() instead.",
    "XlaRuntimeError: DEADLINE_EXCEEDED: Timed out waiting for the TPU program to finish",
    "jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Error allocating device buffer: Attempting to allocate 1.50G. That was not possible. There are 812.40M free.; (0x0x0_HBM0)",
    "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 23.65 GiB of which 1.02 GiB is free.",
    "F0412 10:11:12.123456  4711 apply_vector_layout.cc:812] Check failed: layout.has_value()",
    "NotImplementedError: Reductions over unsigned integers not implemented.",
    "jax._src.pallas.mosaic.lowering.LoweringException: NotImplementedError: Unsupported cast: uint32 -> float32",
    "XlaRuntimeError: INTERNAL: Mosaic failed to compile TPU kernel: Not implemented: Only 32-bit constants supported",
    "ValueError: Cannot use communication in pallas_call without shard_map.",
]

# The 2 KB pasted error ends with this line.
SMALL_ERROR = ERRORS[1]

WORDS = ["train", "eval", "step", "update", "apply", "loss", "grad", "opt", "shard",
         "gather", "scatter", "reduce", "matmul", "conv", "norm", "embed", "decode",
         "prefill", "sample", "logits", "rope", "mlp", "proj", "moe", "router"]
DTYPES = ["f32", "s32", "f16", "u8", "s8", "pred"]
MODULES = ["trainer", "data", "checkpoint", "metrics", "optimizer", "input_pipeline"]
CCFILES = ["tpu_compiler.cc", "pjrt_client.cc", "service.cc", "gpu_compiler.cc",
           "tfrt_cpu_pjrt_client.cc", "xla_bridge.cc", "hlo_pass_pipeline.cc", "async_checkpoint.cc"]
PKGS = ["numpy", "absl-py", "optax", "flax", "orbax-checkpoint", "chex", "einops",
        "tensorstore", "ml-dtypes", "opt-einsum", "msgpack", "rich", "typing-extensions"]


def shape(r, rank=None):
    rank = rank or r.choice((1, 2, 2, 3, 4))
    return ",".join(str(r.choice((8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096))) for _ in range(rank))


def ts(r):
    return "I%02d%02d %02d:%02d:%02d.%06d %6d" % (r.randint(1, 12), r.randint(1, 28), r.randint(0, 23),
                                                 r.randint(0, 59), r.randint(0, 59), r.randint(0, 999999),
                                                 r.randint(1000, 99999))


def iso(r):
    return "2025-%02d-%02d %02d:%02d:%02d,%03d" % (r.randint(1, 12), r.randint(1, 28), r.randint(0, 23),
                                                r.randint(0, 59), r.randint(0, 59), r.randint(0, 999))


def fn(r):
    return "%s_%s" % (r.choice(WORDS), r.choice(WORDS))


# Each template renders one pool element: a line or a small block of lines.
def t_glog_compile(r):
    return "%s %s:%d] Compiling jit_%s with global shapes [ShapedArray(%s[%s]), ShapedArray(%s[%s])] and memory kinds device" % (
        ts(r), r.choice(CCFILES), r.randint(10, 3000), fn(r), r.choice(DTYPES), shape(r), r.choice(DTYPES), shape(r))


def t_glog_mem(r):
    return "%s %s:%d] XLA backend will use up to %d bytes of host memory; hbm in use %.2fG of %.2fG" % (
        ts(r), r.choice(CCFILES), r.randint(10, 3000), r.randint(10**9, 10**11), r.random() * 30, 31.75)


def t_glog_warn(r):
    return "W%s %s:%d] error rate %.4f within budget, %d retries left; lowering cache hit for %s" % (
        ts(r)[1:], r.choice(CCFILES), r.randint(10, 3000), r.random() / 100, r.randint(1, 9), fn(r))


def t_step(r):
    return "INFO:absl:Step %d: loss=%.4f lr=%.3e grad_norm=%.3f tokens/s=%d" % (
        r.randint(1, 500000), r.random() * 4, r.random() / 1000, r.random() * 3, r.randint(10000, 900000))


def t_pylog(r):
    return "%s - %s - INFO - epoch %d step %d loss %.5f accuracy %.4f (sorted %d shards by size)" % (
        iso(r), r.choice(MODULES), r.randint(0, 90), r.randint(0, 100000), r.random() * 3, r.random(),
        r.randint(2, 512))


def t_hlo(r):
    op = r.choice(("add", "multiply", "dot", "reduce", "transpose", "broadcast"))
    return "  %%%s.%d = %s[%s]{1,0} %s(%%param.%d, %%param.%d), metadata={op_name=\"jit(%s)/%s\"}" % (
        op, r.randint(1, 999), r.choice(DTYPES), shape(r, 2), op, r.randint(0, 9), r.randint(0, 9), fn(r), op)


def t_mlir(r):
    return "    %%%d = vector.load %%arg%d[%%c0, %%c0] : memref<%dx%dxf32, #tpu.memory_space<vmem>>, vector<8x128xf32>" % (
        r.randint(1, 400), r.randint(0, 9), r.choice((8, 16, 128, 256)), r.choice((128, 256, 512)))


def t_traceback(r):
    n = r.randint(1, 9999)
    return ("Traceback (most recent call last):\n"
            "  File \"/srv/train/data/loader.py\", line %d, in __getitem__\n"
            "    return self.cache[key]\n"
            "KeyError: 'shard_%05d'\n"
            "%s - data - WARNING - cache miss for shard_%05d, reading it from disk (handled)") % (
                r.randint(10, 900), n, iso(r), n)


def t_pytest(r):
    return "tests/ops/test_%s.py::test_%s[%s-%s] PASSED%s[%3d%%]" % (
        r.choice(WORDS), fn(r), r.choice(DTYPES), shape(r, 2).replace(",", "x"), " " * r.randint(4, 30),
        r.randint(0, 100))


def t_pip(r):
    p = r.choice(PKGS)
    if r.random() < 0.5:
        return "Collecting %s>=%d.%d (from -r requirements.txt (line %d))" % (p, r.randint(0, 3), r.randint(0, 30), r.randint(1, 40))
    return "  Downloading %s-%d.%d.%d-py3-none-any.whl (%d kB)" % (p.replace("-", "_"), r.randint(0, 3),
                                                                  r.randint(0, 30), r.randint(0, 9), r.randint(10, 9000))


def t_warning(r):
    return "/opt/conda/envs/ci/site-packages/flax/core/scope.py:%d: DeprecationWarning: the %s argument is deprecated; memory layout is chosen automatically" % (
        r.randint(10, 999), fn(r))


def t_progress(r):
    n = r.randint(1, 1000)
    return "eval: %3d%%|%s| %d/1000 [00:%02d<00:%02d, %.1fit/s] failed samples 0" % (
        n // 10, "\u2588" * (n // 100) + " " * (10 - n // 100), n, r.randint(0, 59), r.randint(0, 59), r.random() * 90)


def t_ckpt(r):
    return "%s - checkpoint - INFO - Saved checkpoint to /mnt/ckpt/run-%d/ckpt-%d (%d bytes, hbm copy exhausted none)" % (
        iso(r), r.randint(1, 9999), r.randint(1, 500000), r.randint(10**6, 10**10))


def t_shapes(r):
    return "Compiling jit_%s for args (%s) with donate_argnums=(0,) took %.3f ms; lowering %.3f ms" % (
        fn(r), ", ".join("ShapedArray(%s[%s])" % (r.choice(DTYPES), shape(r)) for _ in range(r.randint(1, 4))),
        r.random() * 900, r.random() * 90)


TEMPLATES = [  # (template, weight)
    (t_glog_compile, 10), (t_glog_mem, 5), (t_glog_warn, 4), (t_step, 25), (t_pylog, 15),
    (t_hlo, 8), (t_mlir, 5), (t_traceback, 1), (t_pytest, 8), (t_pip, 3), (t_warning, 3),
    (t_progress, 4), (t_ckpt, 2), (t_shapes, 7),
]

# Small logs for `scan`: (kind, lines); None = no failure in the log.
SMALL_KINDS = [
    ("capacity", [ERRORS[1]]),
    ("capacity-stack", ["Traceback (most recent call last):",
                        "  File \"/srv/llm/serve.py\", line 140, in <module>",
                        "    logits = decode(params, cache, tok)",
                        ERRORS[0]]),
    ("layout", [ERRORS[3]]),
    ("unsupported", ["  File \"/w/scan.py\", line 13, in call_kernel",
                     "    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8, 128), x.dtype))(x)",
                     ERRORS[2]]),
    ("sync", [ERRORS[11]]),
    ("numerics", ["AssertionError:", "Not equal to tolerance rtol=1e-05, atol=1e-05", "",
                  ERRORS[9], "Max absolute difference among violations: 0.0625"]),
    ("hbm", [ERRORS[13]]),
    ("none", None),
]


def build_pool(r, n):
    fns = [t for t, w in TEMPLATES for _ in range(w)]
    return [r.choice(fns)(r) + "\n" for _ in range(n)]


def compile_patterns(path):
    pats, skipped = [], 0
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            src = line.rstrip("\n")
            if not src:
                continue
            try:
                pats.append(re.compile(src))
            except re.error:
                skipped += 1
    return pats, skipped


def check(pats, pool_sample):
    bad = 0
    for i, e in enumerate(ERRORS):
        if not any(p.search(e) for p in pats):
            print("gen_log: error template %d matches no pattern: %s" % (i, e[:80]), file=sys.stderr)
            bad += 1
    for elem in pool_sample:
        for line in elem.splitlines():
            hit = next((p.pattern for p in pats if p.search(line)), None)
            if hit:
                print("gen_log: ordinary line matches %r: %s" % (hit[:60], line[:100]), file=sys.stderr)
                bad += 1
    return bad


def write_big(r, out, size, pool):
    """Write at most size bytes of whole lines, with an error line every
    25,000-75,000 pool elements. Returns (lines, bytes, error lines written)."""
    pool_b = [p.encode("utf-8") for p in pool]
    errs = []
    elems = written = lines = 0
    next_err = r.randint(1000, 60000)
    batch = 8192
    with open(os.path.join(out, "big.log"), "wb") as f:
        while written < size:
            chunk = r.choices(pool_b, k=batch)
            inserted = None
            if elems + batch > next_err:
                inserted = (ERRORS[len(errs) % len(ERRORS)] + "\n").encode("utf-8")
                chunk.insert(next_err - elems, inserted)
                next_err += r.randint(25000, 75000)
            elems += batch
            data = b"".join(chunk)
            if written + len(data) > size:
                keep, n = [], written
                for c in chunk:
                    if n + len(c) > size:
                        break
                    keep.append(c)
                    n += len(c)
                if inserted is not None and not any(c is inserted for c in keep):
                    inserted = None
                data = b"".join(keep)
                size = written + len(data)  # stop after this write
            if inserted is not None:
                errs.append(inserted.decode("utf-8"))
            f.write(data)
            written += len(data)
            lines += data.count(b"\n")
    return lines, written, errs


def write_small(r, out, pool, n):
    base = os.path.join(out, "small")
    kinds = {}
    for i in range(n):
        d = os.path.join(base, "batch-%02d" % (i % 10))
        os.makedirs(d, exist_ok=True)
        kind, err = SMALL_KINDS[r.randrange(len(SMALL_KINDS))]
        body = r.choices(pool, k=r.randint(40, 160))
        if err:
            body.append("\n".join(err) + "\n")
            body += r.choices(pool, k=r.randint(0, 5))
        with open(os.path.join(d, "job-%04d.log" % i), "w", encoding="utf-8", newline="\n") as f:
            f.write("".join(body))
        kinds[kind] = kinds.get(kind, 0) + 1
    return kinds


def write_2k(r, out, pool):
    """About 2 KB: ordinary one-line elements, then the OOM line."""
    short = [l for l in pool if len(l) < 140 and l.count("\n") == 1]
    body, n = [], len(SMALL_ERROR) + 1
    while n < 2000:
        line = r.choice(short)
        body.append(line)
        n += len(line.encode("utf-8"))
    text = "".join(body) + SMALL_ERROR + "\n"
    with open(os.path.join(out, "small-2k.log"), "w", encoding="utf-8", newline="\n") as f:
        f.write(text)
    return len(text.encode("utf-8"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                  "..", "..", "build", "perf-data"))
    ap.add_argument("--size", type=int, default=1 << 30, help="bytes of big.log (default 1 GiB)")
    ap.add_argument("--small", type=int, default=1000, help="number of small logs")
    ap.add_argument("--patterns", help="exported patterns to check the templates against")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    r = random.Random(SEED)
    pool = build_pool(r, 60000)
    if a.patterns:
        pats, skipped = compile_patterns(a.patterns)
        bad = check(pats, pool[:3000])
        print("gen_log: checked %d patterns (%d not in Python syntax, skipped) on %d error templates "
              "and 3000 pool elements: %d problems" % (len(pats), skipped, len(ERRORS), bad), file=sys.stderr)
        if bad:
            sys.exit(1)
    lines, size, errs = write_big(r, a.out, a.size, pool)
    with open(os.path.join(a.out, "big-errors.log"), "w", encoding="utf-8", newline="\n") as f:
        f.write("".join(errs))
    size2k = write_2k(r, a.out, pool)
    kinds = write_small(r, a.out, pool, a.small)
    meta = {"seed": SEED, "big_bytes": size, "big_lines": lines, "error_lines": len(errs),
            "expected_matches": len(errs), "small_2k_bytes": size2k, "small_logs": a.small,
            "small_kinds": kinds}
    with open(os.path.join(a.out, "meta.json"), "w") as f:
        json.dump(meta, f, indent=1, sort_keys=True)
        f.write("\n")
    print("gen_log: wrote %s: %d bytes, %d lines, %d error lines; %d small logs" % (
        a.out, size, lines, len(errs), a.small), file=sys.stderr)


if __name__ == "__main__":
    main()
