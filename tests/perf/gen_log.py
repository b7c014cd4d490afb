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
  pallas.log       a Pallas project's CI log (pallas_lines.py): tests/pallas
                   pytest lines, tracebacks through jax/_src/pallas frames with
                   kernel code, Mosaic IR, XLA fusions and tpu_custom_call HLO,
                   jax debug logging, and big.log's lines; the same rare errors
  dense.log        a test suite where hundreds of kernels fail: failing-test
                   blocks (traceback through Pallas, the error) between
                   Pallas lines; about one error line in twenty
  NAME-errors.log  each log's error lines alone, in the same order
  small-2k.log     a ~2 KB pasted error: 16 ordinary lines and one OOM line
  small/           1,000 small CI logs (5-20 KB) in 10 directories: a handful
                   of failure kinds, duplicates of each, some with no failure
  meta.json        sizes, line counts and the grep/rg match count of each log

The output depends only on the seed: the same bytes on every machine.
Lines come from pools of pre-rendered lines (fast: a big log is assembled in
~1 MB joins). With --patterns FILE (the specific rules' patterns, from
`pallas-triage rules export-patterns --specific`) every error template is
checked to match some pattern and a sample of big.log's ordinary lines to
match none. With --peer FILE (translate.py's Python form of what the peers
get) each pool element's lines are matched once, so meta.json says how
many lines grep -c and rg -c must count in each log.
"""
import argparse
import json
import multiprocessing
import os
import random
import re
import sys

import pallas_lines

SEED = 20250611
INPUTS = ("big", "pallas", "dense")

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


def build_pallas_pool(r, ordinary, n):
    """The Pallas-heavy mix: pallas_lines' templates, and ordinary CI lines."""
    fns = [t for t, w in pallas_lines.PALLAS_MIX for _ in range(w)]
    return [r.choice(ordinary) if r.randrange(100) < pallas_lines.PALLAS_ORDINARY else r.choice(fns)(r) + "\n"
            for _ in range(n)]


def build_dense_pool(r, n):
    """Between the failing tests of the dense log: Pallas evidence only."""
    fns = [t for t, w in pallas_lines.PALLAS_MIX for _ in range(w)]
    return [r.choice(fns)(r) + "\n" for _ in range(n)]


def compile_patterns(path):
    pats, skipped = [], 0
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            src = line.rstrip("\n")
            if not src:
                continue
            try:
                # bytes: ASCII \b, \w, \d, as PCRE2 without UTF mode, grep in C and rg --no-unicode
                pats.append(re.compile(src.encode("utf-8")))
            except re.error:
                skipped += 1
    return pats, skipped


def check(pats, pool_sample):
    bad = 0
    for i, e in enumerate(ERRORS):
        if not any(p.search(e.encode()) for p in pats):
            print("gen_log: error template %d matches no pattern: %s" % (i, e[:80]), file=sys.stderr)
            bad += 1
    for elem in pool_sample:
        for line in elem.splitlines():
            hit = next((p.pattern for p in pats if p.search(line.encode())), None)
            if hit:
                print("gen_log: ordinary line matches %r: %s" % (hit[:60], line[:100]), file=sys.stderr)
                bad += 1
    return bad


_PEER = []


def _peer_init(path):
    _PEER[:] = compile_patterns(path)[0]


def _matching_lines(elem):
    """How many lines of a pool element some peer pattern matches."""
    return sum(1 for l in elem.split(b"\n")[:-1] if any(p.search(l) for p in _PEER))


def peer_matches(path, elems):
    """For each element (bytes), how many of its lines the peers' patterns
    match: what rg -c and grep -c count. Python's re on bytes, with the patterns
    the peers got (translate.py's PEER file), on both cores."""
    if not path:
        return [0] * len(elems)
    with multiprocessing.Pool(2, _peer_init, (path,)) as pool:
        return pool.map(_matching_lines, elems, chunksize=256)


class Input:
    """One log of the bench and its companion: NAME.log and NAME-errors.log
    (the error lines alone, in order); and the count of the lines the
    peers' patterns match."""

    def __init__(self, out, name):
        self.name = name
        self.files = [open(os.path.join(out, "%s%s.log" % (name, s)), "wb") for s in ("", "-errors")]
        self.lines = self.bytes = self.errors = self.matches = 0

    def write(self, data, errors, match):
        self.files[0].write(data)
        self.files[1].write(errors)
        self.bytes += len(data)
        self.lines += data.count(b"\n")
        self.errors += errors.count(b"\n")
        self.matches += match

    def close(self):
        for f in self.files:
            f.close()
        return {"bytes": self.bytes, "lines": self.lines, "error_lines": self.errors, "matches": self.matches}


def write_log(r, log, size, pool, match, gaps, error_elem):
    """Write at most size bytes of whole pool elements (drawn with r) with an
    error element inserted after every gaps() elements; error_elem(k)
    returns the k-th one as (bytes, its error line, its matching lines' count)."""
    elems = 0
    next_err = gaps(True)
    batch = 8192
    written = 0
    k = 0
    while written < size:
        idx = r.choices(range(len(pool)), k=batch)
        parts = [(pool[i], b"", match[i]) for i in idx]
        while elems + batch > next_err:
            parts.insert(next_err - elems + (len(parts) - batch), error_elem(k))
            k += 1
            next_err += gaps(False)
        elems += batch
        keep, n = [], written
        for p in parts:
            if n + len(p[0]) > size:
                size = n  # stop after this write
                break
            keep.append(p)
            n += len(p[0])
        log.write(b"".join(p[0] for p in keep), b"".join(p[1] for p in keep), sum(p[2] for p in keep))
        written = n


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


def spread_errors(r):
    """One error line every 25,000-75,000 pool elements."""
    return lambda first: r.randint(1000, 60000) if first else r.randint(25000, 75000)


def error_line(k, peer):
    e = (ERRORS[k % len(ERRORS)] + "\n").encode("utf-8")
    return e, e, 1 if peer else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                  "..", "..", "build", "perf-data"))
    ap.add_argument("--size", type=int, default=1 << 30, help="bytes of each big log (default 1 GiB)")
    ap.add_argument("--small", type=int, default=1000, help="number of small logs")
    ap.add_argument("--patterns", help="exported specific patterns to check the templates against")
    ap.add_argument("--peer", help="the patterns the peers get (translate.py), to count their matches")
    ap.add_argument("--inputs", default=",".join(INPUTS), help="which big logs (default: %(default)s)")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    r = random.Random(SEED)
    pool = build_pool(r, 60000)
    rp = random.Random(SEED + 1)
    ppool = build_pallas_pool(rp, pool, 20000)
    dpool = build_dense_pool(rp, 8000)
    failing = [pallas_lines.failing_test(rp, ("E   " if rp.random() < 0.3 else "") + ERRORS[k % len(ERRORS)]) + "\n"
               for k in range(2000)]
    if a.patterns:
        pats, skipped = compile_patterns(a.patterns)
        # big.log's lines are no failure a rule knows, not even a hint of one;
        # the Pallas inputs' lines match tie patterns and facts on purpose
        # (the verdict check of bench.sh covers those)
        sample = pool[:3000]
        bad = check(pats, sample)
        print("gen_log: checked %d patterns (%d not in Python syntax, skipped) on %d error templates "
              "and %d pool elements: %d problems" % (len(pats), skipped, len(ERRORS), len(sample), bad), file=sys.stderr)
        if bad:
            sys.exit(1)
    meta = {"seed": SEED, "inputs": {}}
    wanted = a.inputs.split(",")
    peer = bool(a.peer)
    for name in INPUTS:
        if name not in wanted:
            continue
        log = Input(a.out, name)
        if name == "big":
            enc = [p.encode("utf-8") for p in pool]
            write_log(r, log, a.size, enc, peer_matches(a.peer, enc), spread_errors(r),
                      lambda k: error_line(k, peer))
        elif name == "pallas":
            enc = [p.encode("utf-8") for p in ppool]
            write_log(rp, log, a.size, enc, peer_matches(a.peer, enc), spread_errors(rp),
                      lambda k: error_line(k, peer))
        else:
            enc = [p.encode("utf-8") for p in dpool]
            fenc = [f.encode("utf-8") for f in failing]
            fmatch = peer_matches(a.peer, fenc)
            ferr = [f.rstrip(b"\n").rsplit(b"\n", 1)[1] + b"\n" for f in fenc]
            write_log(rp, log, a.size, enc, peer_matches(a.peer, enc),
                      lambda first: rp.randint(3, 9),
                      lambda k: (fenc[k % len(fenc)], ferr[k % len(fenc)], fmatch[k % len(fenc)]))
        meta["inputs"][name] = log.close()
        print("gen_log: wrote %s.log: %s" % (name, meta["inputs"][name]), file=sys.stderr)
    meta["small_2k_bytes"] = write_2k(r, a.out, pool)
    meta["small_kinds"] = write_small(r, a.out, pool, a.small)
    meta["small_logs"] = a.small
    meta["peer_counts"] = peer
    with open(os.path.join(a.out, "meta.json"), "w") as f:
        json.dump(meta, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
