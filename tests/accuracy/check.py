#!/usr/bin/env python3
"""Run every case of cases.tsv through the binary (--json) and check what the
case says: class, tier, contexts held and absent, a confidence cap, the
deciding rule and, in an optional ninth column, top-level values such as
backend=triton,chip=h100 (null for none) or ladder=RUNG-ID (the first rung). Prints 'ok'/'FAIL' per check and 'N passed, N failed'."""
import json
import os
import subprocess
import sys


def run_case(pt, logs, fields):
    log, args, cls, tier, held, absent, max_conf, rule = fields[:8]
    target = fields[8] if len(fields) > 8 else "-"
    argv = [pt, "--no-input", "--json"]
    if args != "-":
        argv += [a.replace("@LOGS", logs) for a in args.split(",")]
    argv.append(os.path.join(logs, log))
    proc = subprocess.run(argv, capture_output=True)
    name = log + ("" if args == "-" else " " + args.replace("@LOGS/", ""))
    try:
        d = json.loads(proc.stdout.decode("utf-8", errors="strict"))
    except ValueError as e:
        return [(False, f"{name}: no JSON ({e}); stderr: {proc.stderr[:200]!r}")]
    holds = {c["id"] for c in d["contexts"] if c["held"]}
    checks = [(d["class"] == cls, f"{name}: class {d['class']}, expected {cls}")]
    if tier != "-":
        checks.append((d["tier"] == tier, f"{name}: tier {d['tier']}, expected {tier}"))
    for c in [] if held == "-" else held.split(","):
        checks.append((c in holds, f"{name}: context {c} holds"))
    for c in [] if absent == "-" else absent.split(","):
        checks.append((c not in holds, f"{name}: context {c} does not hold"))
    if max_conf != "-":
        checks.append((d["confidence"] <= float(max_conf) + 1e-9,
                       f"{name}: confidence {d['confidence']} <= {max_conf}"))
    if rule != "-":
        checks.append(((d["rule"] or "").startswith(rule), f"{name}: rule {d['rule']}, expected {rule}..."))
    for kv in [] if target == "-" else target.split(","):
        key, want = kv.split("=", 1)
        # ladder=ID: the first rung shown, so the backend's ladder is the one chosen
        got = (d.get("ladder") or [{}])[0].get("id") if key == "ladder" else d.get(key)
        checks.append((got == (None if want == "null" else want), f"{name}: {key} {got}, expected {want}"))
    want_rc = 1 if cls == "unknown" else 0
    checks.append((proc.returncode == want_rc, f"{name}: exit status {proc.returncode}, expected {want_rc}"))
    return checks


def main():
    pt, here = sys.argv[1], os.path.dirname(os.path.abspath(__file__))
    logs = os.path.join(here, "logs")
    passed = failed = 0
    for line in open(os.path.join(here, "cases.tsv"), encoding="utf-8"):
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.rstrip("\n").split("\t")
        if len(fields) not in (8, 9):
            print(f"FAIL bad case line: {line.strip()}")
            failed += 1
            continue
        for good, what in run_case(pt, logs, fields):
            print(("ok " if good else "FAIL ") + what)
            passed += good
            failed += not good
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
