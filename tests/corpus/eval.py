#!/usr/bin/env python3
"""Measure the classifier on a labelled corpus (../shared/corpus/index.tsv).

A row counts as right when the verdict is its label or, for rows whose notes
name another defensible class ("amb: X", "alt: X or Y"), one of those. Rows
labelled unknown must come out unknown: a kernel class there is a false
alarm, and any false alarm fails the run.

Prints the confusion matrix, per-class precision and recall, a calibration
table (confidence bucket -> share right), the Pallas-on-GPU rows apart, and
the plain "N passed, N failed" line (one row = one case).

Gates (docs/accuracy.md): top-1 accuracy >= BAR; no false alarm; verdicts at
confidence >= 0.8 right at least 95% of the time; no kernel class above 0.5
on a log where the pallas-kernel context does not hold.
"""
import csv
import json
import re
import subprocess
import sys

CLASSES = ["layout", "capacity", "synchronization", "numerics", "unsupported", "unknown"]
BUCKETS = [(0.0, 0.3), (0.3, 0.5), (0.5, 0.6), (0.6, 0.8), (0.8, 0.9), (0.9, 1.01)]
HIGH_CONFIDENCE, HIGH_CONFIDENCE_BAR = 0.8, 0.95
NO_CONTEXT_MAX = 0.5


def alternatives(notes):
    alts = set()
    for m in re.finditer(r"\b(?:amb|alt):\s*([a-z]+)((?:\s+or\s+[a-z]+)*)", notes):
        alts.add(m.group(1))
        alts.update(re.findall(r"or\s+([a-z]+)", m.group(2)))
    return {a for a in alts if a in CLASSES}


def is_gpu(row):
    """A Pallas-on-GPU row (its notes say `gpu`), or a GPU log that is not Pallas."""
    if re.search(r"\bgpu\b", row["notes"]):
        return True
    return row["class"] == "unknown" and re.search(
        r"\bGPU\b|CUDA|ROCm|Triton|Inductor|\bMI\d{3}|\b[AH]100\b|\bRTX\b", row["notes"]) is not None


def triage(pt, path):
    proc = subprocess.run([pt, "--no-input", "--json", path], capture_output=True)
    try:
        out = json.loads(proc.stdout.decode("utf-8", errors="strict"))
        held = {c["id"] for c in out.get("contexts", []) if c.get("held")}
        return out["class"], float(out.get("confidence", 0.0)), held
    except (ValueError, KeyError, UnicodeDecodeError):
        return f"error(rc={proc.returncode})", 0.0, set()


def print_matrix(matrix):
    width = max(len(c) for c in CLASSES)
    print("confusion matrix (rows: label, columns: verdict)")
    print(" " * (width + 1) + " ".join(c[:6].rjust(6) for c in CLASSES))
    for a in CLASSES:
        print(a.ljust(width + 1) + " ".join(str(matrix[a][b]).rjust(6) for b in CLASSES))


def print_precision_recall(results):
    print("per class (a verdict counts as right when the row accepts it)")
    print("  %-16s %9s %9s %6s" % ("class", "precision", "recall", "rows"))
    for c in CLASSES:
        said = [r for r in results if r["got"] == c]
        rows = [r for r in results if r["label"] == c]
        prec = sum(r["ok"] for r in said) / len(said) if said else float("nan")
        rec = sum(r["ok"] for r in rows) / len(rows) if rows else float("nan")
        print("  %-16s %9s %9s %6d" % (c, "%.1f%%" % (100 * prec) if said else "-",
                                       "%.1f%%" % (100 * rec) if rows else "-", len(rows)))


def print_calibration(results):
    print("calibration (confidence of the verdict -> share right)")
    for lo, hi in BUCKETS:
        inb = [r for r in results if lo <= r["conf"] < hi]
        right = sum(r["ok"] for r in inb)
        share = "%.1f%%" % (100.0 * right / len(inb)) if inb else "-"
        print("  [%.1f, %.1f)  %3d verdicts  %7s right" % (lo, min(hi, 1.0), len(inb), share))


def summarise(title, rows):
    right = sum(r["ok"] for r in rows)
    alarms = sum(1 for r in rows if r["label"] == "unknown" and r["got"] != "unknown")
    acc = right / len(rows) if rows else 0.0
    print(f"{title}: {right}/{len(rows)} right ({acc:.1%}), false alarms {alarms}")
    return acc, alarms


def main():
    pt, corpus, bar = sys.argv[1], sys.argv[2], float(sys.argv[3])
    rows = list(csv.DictReader(open(f"{corpus}/index.tsv", encoding="utf-8"), delimiter="\t"))
    matrix = {a: {b: 0 for b in CLASSES} for a in CLASSES}
    results = []
    for row in rows:
        got, conf, held = triage(pt, f"{corpus}/{row['file']}")
        label = row["class"]
        ok = got == label or got in alternatives(row["notes"])
        if got in CLASSES:
            matrix[label][got] += 1
        results.append({"id": row["id"], "label": label, "got": got, "conf": conf, "ok": ok,
                        "held": held, "gpu": is_gpu(row), "notes": row["notes"][:70]})
    print_matrix(matrix)
    print_precision_recall(results)
    print_calibration(results)
    for r in results:
        if not r["ok"]:
            print("wrong: %s label=%s verdict=%s conf=%.2f (%s)" % (r["id"], r["label"], r["got"],
                                                                 r["conf"], r["notes"]))
    high = [r for r in results if r["conf"] >= HIGH_CONFIDENCE]
    high_share = sum(r["ok"] for r in high) / len(high) if high else 1.0
    overclaimed = [r for r in results if r["got"] not in ("unknown",) and r["got"] in CLASSES
                   and "pallas-kernel" not in r["held"] and r["conf"] > NO_CONTEXT_MAX + 1e-9]
    for r in overclaimed:
        print("overclaimed: %s %s at %.2f without the pallas-kernel context" % (r["id"], r["got"], r["conf"]))
    summarise("gpu rows (Pallas on GPU, and GPU logs that are not Pallas)", [r for r in results if r["gpu"]])
    summarise("tpu and other rows", [r for r in results if not r["gpu"]])
    acc, alarms = summarise("all rows", results)
    print(f"top-1 accuracy {acc:.1%} (bar {bar:.0%}); false alarms on unknown logs: {alarms}; "
          f"right at confidence >= {HIGH_CONFIDENCE}: {high_share:.1%} of {len(high)} "
          f"(bar {HIGH_CONFIDENCE_BAR:.0%})")
    right = sum(r["ok"] for r in results)
    print(f"{right} passed, {len(results) - right} failed")
    good = acc >= bar and alarms == 0 and high_share >= HIGH_CONFIDENCE_BAR and not overclaimed
    return 0 if good else 1


if __name__ == "__main__":
    sys.exit(main())
