#!/usr/bin/env python3
"""Write a big log (about SIZE bytes) for the scout's equivalence tests.

Usage: gen.py OUT SIZE SCENARIO FIXTURE...

Ordinary training-log lines, with the FIXTURE logs (real failure logs from
tests/triage) spliced in: one across each of the first 1 MiB block
boundaries, the rest spread out. Scenarios add what could make a second
reader disagree with the first:
  mixed  colored lines (escape sequences, some cut by 128 KiB reads), CRLF
         lines, lines over 64 KiB across a block boundary, lines with a
         common literal ("kernel") so the prefilter is rebuilt
  dense  a candidate on every line (Python frames)
  late   the failure only in the last block
  frames tracebacks all through: library frames (passed over unseen), the
         user's frames (alone on their line), frames with other literals
Deterministic: a fixed seed.
"""
import random
import sys

MIB = 1 << 20


def ordinary(rng):
    k = rng.randrange(6)
    if k == 0:
        return "INFO:absl:Step %d: loss=%.4f lr=%.3e\n" % (rng.randrange(10**6), rng.random() * 4, rng.random() / 1000)
    if k == 1:
        return "I0101 12:00:%02d.%06d  4242 xla_bridge.cc:%d] Compiling jit_step_%d\n" % (
            rng.randrange(60), rng.randrange(10**6), rng.randrange(3000), rng.randrange(100))
    if k == 2:
        return "eval: %d/1000 [00:%02d<00:%02d, %.1fit/s]\n" % (rng.randrange(1000), rng.randrange(60), rng.randrange(60), rng.random() * 90)
    if k == 3:
        return "  %%add.%d = f32[%d,%d]{1,0} add(%%p.0, %%p.1)\n" % (rng.randrange(999), 8 << rng.randrange(6), 128 << rng.randrange(4))
    if k == 4:
        return "2025-01-01 00:00:%02d,%03d - data - INFO - epoch %d step %d\n" % (rng.randrange(60), rng.randrange(1000), rng.randrange(90), rng.randrange(10**5))
    return "checkpoint saved to /mnt/ckpt/run-%d (%d bytes)\n" % (rng.randrange(10**4), rng.randrange(10**10))


def frame(rng):
    """A traceback piece: library frames (which the walk passes over), user
    frames (alone on their line), frames with another literal, Traceback."""
    k = rng.randrange(10)
    if k < 5:
        return '  File "/opt/venv/lib/python3.11/site-packages/jax/_src/core.py", line %d, in bind\n' % rng.randrange(1, 3000)
    if k < 7:
        return '  File "/home/ci/proj/step_%d.py", line %d, in run_%d\n' % (rng.randrange(50), rng.randrange(1, 900), rng.randrange(9))
    if k < 8:
        return '  File "/opt/venv/lib/python3.11/site-packages/jax/_src/pallas/pallas_call.py", line %d, in _pallas_call_impl\n' % rng.randrange(1, 3000)
    if k < 9:
        return "Traceback (most recent call last):\n"
    return "    return fn(*args)\n"


def extra(rng, scenario):
    if scenario == "frames":
        return frame(rng) if rng.randrange(3) == 0 else None
    if scenario == "dense":
        return '  File "/opt/venv/lib/python3.11/site-packages/jax/_src/core.py", line %d, in bind\n' % rng.randrange(3000)
    if scenario != "mixed":
        return None
    k = rng.randrange(200)
    if k < 4:
        return "\x1b[32mI0101 the kernel compiled in %d ms\x1b[0m\n" % rng.randrange(999)
    if k < 8:
        return "W0101 a kernel warning %d\r\n" % rng.randrange(999)
    if k < 12:
        return "I0101 launching kernel %d on TPU v5e\n" % rng.randrange(999)
    return None


def main():
    out, size, scenario, fixtures = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4:]
    rng = random.Random(7)
    texts = [open(f, "rb").read().decode("latin-1") for f in fixtures]
    parts, n = [], 0
    nblocks = size // MIB
    if scenario == "late":
        splice = {nblocks - 1: texts}
    else:
        splice = {b: [t] for b, t in zip(range(1, nblocks), texts)}
    long_at = {3, 9} if scenario == "mixed" else set()
    for block in range(nblocks + 1):
        end = min((block + 1) * MIB, size)
        for t in splice.get(block, []):
            # start the fixture a little before the boundary so it straddles it
            while n < block * MIB - 200 - len(t) // 2:
                line = extra(rng, scenario) or ordinary(rng)
                parts.append(line)
                n += len(line)
            parts.append(t if t.endswith("\n") else t + "\n")
            n += len(parts[-1])
        if block in long_at:
            while n < block * MIB - 30000:
                line = ordinary(rng)
                parts.append(line)
                n += len(line)
            # 90 KB: cut or not depending on where reads fall; 200 KB: always cut
            tail = 40000 if block == 3 else 150000
            line = "x" * 50000 + " RESOURCE_EXHAUSTED inside a long line " + "y" * tail + "\n"
            parts.append(line)
            n += len(line)
        while n < end:
            line = extra(rng, scenario) or ordinary(rng)
            parts.append(line)
            n += len(line)
    with open(out, "wb") as f:
        f.write("".join(parts).encode("latin-1"))


if __name__ == "__main__":
    main()
