#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The summary of `make bench` (tests/perf/bench.sh).

Usage: summary.py DATA-DIR BASELINE.tsv "INPUTS" [baseline]

Reads the hyperfine exports, rss.tsv and answers.txt that bench.sh wrote
into DATA-DIR, prints per input the throughput of every tool, the ratios
and the targets, compares with the baseline binary timed in the same run
(when bench.sh had one) and with the figures saved in BASELINE.tsv, and
writes DATA-DIR/summary.tsv in BASELINE.tsv's format (copy it over to save
a new baseline). Exits 1 when an answer differs; a missed target is
printed, not an error (one noisy run should not fail the build).
"""
import json
import os
import subprocess
import sys
import time

D, BASEFILE, INPUTS = sys.argv[1], sys.argv[2], sys.argv[3].split()
HAVE_BASE = len(sys.argv) > 4 and sys.argv[4] == "baseline"
# targets per input: (min ratio to rg's throughput, max ratio to cat's time)
TARGETS = {"big": (4.0, 3.0), "pallas": (4.0, 3.0), "dense": (2.0, None)}
RSS_MAX_KIB = 16 * 1024
SMALL_MAX_S = 0.005
TIE = 0.15  # differences under this are noise on these machines


def res(name):
    return json.load(open(os.path.join(D, name)))["results"]


def med(r):
    return r["median"]


def cpu(r):
    return r["user"] + r["system"]


meta = json.load(open(os.path.join(D, "meta.json")))
rss = dict(l.rstrip("\n").split("\t") for l in open(os.path.join(D, "rss.tsv")))
answers = open(os.path.join(D, "answers.txt")).read()
saved = {}
if os.path.exists(BASEFILE):
    for line in open(BASEFILE):
        if line.strip() and not line.startswith("#"):
            f = line.rstrip("\n").split("\t")
            saved[f[0]] = f[1:]
ok = True
rows = []
mbs = lambda n, t: n / t / 1e6

for i in INPUTS:
    n = meta["inputs"][i]["bytes"]
    cat = med(res("h-%s-cat.json" % i)[0])
    r = res("h-%s.json" % i)
    pt, one, rg = r[0], r[1], r[2]
    base = r[3] if HAVE_BASE and len(r) > 3 else None
    gfile = open(os.path.join(D, i + ".grep")).read().strip()
    g = res("h-%s-grep.json" % i)[0]
    gbytes = os.path.getsize(os.path.join(D, gfile))
    grep_mbs = mbs(gbytes, med(g))
    print("%s.log, %d bytes (load average %s)" % (i, n, open("/proc/loadavg").read().split()[0]))
    print("  %-34s %9s %9s %9s" % ("", "median s", "MB/s", "CPU s"))
    show = [("cat (read floor)", cat, None), ("pallas-triage", med(pt), cpu(pt)),
            ("  one thread", med(one), cpu(one)), ("rg --no-unicode -c -f", med(rg), cpu(rg))]
    if base:
        show.append(("baseline pallas-triage", med(base), cpu(base)))
    for name, t, c in show:
        print("  %-34s %9.3f %9.0f %9s" % (name, t, mbs(n, t), "%.3f" % c if c else "-"))
    print("  %-34s %9.3f %9.0f %9s%s" % ("grep -E -c -f", med(g), grep_mbs, "%.3f" % cpu(g),
                                        "" if gfile == i + ".log" else "   (on %s, %d bytes)" % (gfile, gbytes)))
    ratio_rg = med(rg) / med(pt)
    ratio_cat = med(pt) / cat
    ratio_grep = mbs(n, med(pt)) / grep_mbs
    one_rg, one_cat = med(rg) / med(one), med(one) / cat
    want_rg, want_cat = TARGETS.get(i, (None, None))
    met = (want_rg is None or ratio_rg >= want_rg) and (want_cat is None or ratio_cat <= want_cat)
    ok &= met
    print("  pallas-triage: %.2fx rg's throughput%s (by CPU time %.2fx), %.1fx grep's, %.2fx cat's time%s"
          % (ratio_rg, " (target >= %gx)" % want_rg if want_rg else "", cpu(rg) / cpu(pt), ratio_grep,
             ratio_cat, " (target <= %gx)" % want_cat if want_cat else ""))
    print("  one thread: %.2fx rg, %.2fx cat; peak RSS %s KiB (rg %s, grep %s)"
          % (one_rg, one_cat, rss.get("pallas-triage " + i), rss.get("rg " + i), rss.get("grep " + i)))
    if base:
        print("  against the baseline binary: %.2fx its speed (%.3f s against %.3f s; by CPU %.2fx)"
              % (med(base) / med(pt), med(pt), med(base), cpu(base) / cpu(pt)))
    if i in saved:
        s_rg, s_cat = float(saved[i][0]), float(saved[i][1])
        worse = ratio_rg < s_rg * (1 - TIE) or ratio_cat > s_cat * (1 + TIE)
        print("  saved baseline (%s): %.2fx rg, %.2fx cat; now %.2fx, %.2fx%s"
              % (" ".join(saved[i][3:5]), s_rg, s_cat, ratio_rg, ratio_cat,
                 "  REGRESSION" if worse else ""))
    print("  targets: %s" % ("met" if met else "NOT met"))
    rows.append((i, ratio_rg, ratio_cat, one_rg, one_cat))

small = res("h-small.json")
s2k, ver = med(small[0]), med(small[1])
scan = res("h-scan.json")
print("2 KB log, whole run: %.2f ms (target < 5 ms); 'pallas-triage version' floor %.2f ms%s"
      % (s2k * 1e3, ver * 1e3, "; baseline %.2f ms" % (med(small[2]) * 1e3) if HAVE_BASE else ""))
print("scan 1,000 small logs: %.3f s with every core, %.3f s with -j 1 (%.2f ms and %.2f ms of CPU per log)"
      % (med(scan[0]), med(scan[1]), cpu(scan[0]), cpu(scan[1])))
ok &= s2k < SMALL_MAX_S
if HAVE_BASE and len(scan) >= 4:
    print("  baseline: %.3f s and %.3f s; now/baseline %.2f and %.2f (CPU %.2f and %.2f)"
          % (med(scan[2]), med(scan[3]), med(scan[0]) / med(scan[2]), med(scan[1]) / med(scan[3]),
             cpu(scan[0]) / cpu(scan[2]), cpu(scan[1]) / cpu(scan[3])))
for k in ("2k_ms", "scan_s", "scan1_s"):
    if k in saved:
        print("  saved %s: %s (%s)" % (k, saved[k][0], " ".join(saved[k][3:5])))
peak = max(int(v) for k, v in rss.items() if k.startswith("pallas-triage") and v.isdigit())
print("peak RSS of pallas-triage: %d KiB (target < %d KiB)" % (peak, RSS_MAX_KIB))
ok &= peak < RSS_MAX_KIB
print(open(os.path.join(D, "translate.txt")).read().rstrip())
print(answers.rstrip())
same = "DIFFER" not in answers
print("targets: %s" % ("all met" if ok and same else "NOT all met"))

rev = subprocess.run(["git", "-C", os.path.dirname(os.path.abspath(__file__)), "rev-parse", "--short", "HEAD"],
                     capture_output=True, text=True).stdout.strip() or "?"
day = time.strftime("%Y-%m-%d")
with open(os.path.join(D, "summary.tsv"), "w") as f:
    f.write("# input\tratio to rg\tratio to cat\tone thread to rg\tdate\tcommit\n")
    for i, a, b, c, _ in rows:
        f.write("%s\t%.2f\t%.2f\t%.2f\t%s\t%s\n" % (i, a, b, c, day, rev))
    f.write("2k_ms\t%.2f\t-\t-\t%s\t%s\n" % (s2k * 1e3, day, rev))
    f.write("scan_s\t%.3f\t-\t-\t%s\t%s\n" % (med(scan[0]), day, rev))
    f.write("scan1_s\t%.3f\t-\t-\t%s\t%s\n" % (med(scan[1]), day, rev))
sys.exit(0 if same else 1)
