#!/usr/bin/env python3
"""Measure the classifier on a labelled corpus (../shared/corpus/index.tsv).

A row counts as right when the verdict is its label or, for rows whose notes
name another defensible class ("amb: X", "alt: X or Y"), one of those. Rows
labelled unknown must come out unknown: a kernel class there is a false
alarm, and any false alarm fails the run. Prints the confusion matrix and
the plain "N passed, N failed" line (one row = one case).
"""
import csv
import json
import re
import subprocess
import sys

CLASSES = ["layout", "capacity", "synchronization", "numerics", "unsupported", "unknown"]


def alternatives(notes):
    alts = set()
    for m in re.finditer(r"\b(?:amb|alt):\s*([a-z]+)((?:\s+or\s+[a-z]+)*)", notes):
        alts.add(m.group(1))
        alts.update(re.findall(r"or\s+([a-z]+)", m.group(2)))
    return {a for a in alts if a in CLASSES}


def main():
    pt, corpus, bar = sys.argv[1], sys.argv[2], float(sys.argv[3])
    rows = list(csv.DictReader(open(f"{corpus}/index.tsv", encoding="utf-8"), delimiter="\t"))
    matrix = {a: {b: 0 for b in CLASSES} for a in CLASSES}
    right = false_alarms = 0
    wrong = []
    for row in rows:
        proc = subprocess.run([pt, "--no-input", "--json", f"{corpus}/{row['file']}"],
                              capture_output=True, text=True)
        try:
            got = json.loads(proc.stdout)["class"]
        except (ValueError, KeyError):
            got = f"error(rc={proc.returncode})"
        label = row["class"]
        ok = got == label or got in alternatives(row["notes"])
        if got in CLASSES:
            matrix[label][got] += 1
        if ok:
            right += 1
        else:
            wrong.append((row["id"], label, got, row["notes"][:70]))
        if label == "unknown" and got != "unknown":
            false_alarms += 1
    width = max(len(c) for c in CLASSES)
    print("confusion matrix (rows: label, columns: verdict)")
    print(" " * (width + 1) + " ".join(c[:6].rjust(6) for c in CLASSES))
    for a in CLASSES:
        print(a.ljust(width + 1) + " ".join(str(matrix[a][b]).rjust(6) for b in CLASSES))
    for case in wrong:
        print("wrong: %s label=%s verdict=%s (%s)" % case)
    acc = right / len(rows) if rows else 0.0
    print(f"top-1 accuracy {right}/{len(rows)} = {acc:.1%} (bar {bar:.0%}); "
          f"false alarms on unknown logs: {false_alarms}")
    failed = len(rows) - right
    print(f"{right} passed, {failed} failed")
    return 0 if acc >= bar and false_alarms == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
