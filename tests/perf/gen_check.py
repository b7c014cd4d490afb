#!/usr/bin/env python3
"""Write a kernel file of at least N lines for the `check` benchmark.

It is the clean kernel fixtures of tests/check (written for this project),
each copy's functions and constants renamed with a suffix so that every
copy is a kernel of its own, repeated until the file is N lines long.
`pallas-triage check` finds nothing in it (the benchmark checks that).

Usage: gen_check.py OUT [N]   (N defaults to 1000)
"""
import os
import re
import sys

FIXTURES = ["matmul.py", "flash_attention.py", "paged_attention.py",
            "ring_allgather.py", "softmax.py"]


def renamed(src, n):
    names = set(re.findall(r"^def (\w+)", src, re.M))
    names |= set(re.findall(r"^([A-Z_][A-Z0-9_]*) =", src, re.M))
    for name in sorted(names, key=len, reverse=True):
        src = re.sub(r"\b%s\b" % re.escape(name), "%s_%d" % (name, n), src)
    return src


def main():
    out, want = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 1000
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "check")
    srcs = [open(os.path.join(here, f)).read() for f in FIXTURES]
    parts, lines, n = [], 0, 0
    while lines < want:
        s = renamed(srcs[n % len(srcs)], n)
        parts.append(s)
        lines += s.count("\n")
        n += 1
    with open(out, "w") as f:
        f.write("".join(parts))
    print("%s: %d lines, %d kernels" % (out, lines, n))


if __name__ == "__main__":
    main()
