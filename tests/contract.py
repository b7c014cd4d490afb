# The property-table runner of the calculator suites (tests/check-block,
# tests/vmem, tests/smem): each row of TABLE runs `pallas-triage COMMAND
# ARGS --json` and checks the exit status and the --json fields the row
# names, so that a reworded sentence or a new note changes no row.
#
# Usage: python3 tests/contract.py TABLE COMMAND   (PTRUN, SRC and T from tests/lib.sh)
#
# A row is tab-separated: NAME, ARGS, EXIT, CHECKS ('#' starts a comment).
#   ARGS    the arguments, split like a shell line; @SRC is the source tree.
#           The shipped rules are used unless ARGS names --rules.
#   EXIT    the expected exit status
#   CHECKS  words split like a shell line, each PATH OP VALUE:
#           PATH   a JSON path, keys and list indexes joined by '.'
#                  (proposals.0.block, dims.-1.status; [id=tma-window] is the
#                  first entry of a list whose id is tma-window), or 'stderr'
#           OP     '=' the value is this JSON value; '~' the text (or some
#                  string of the list) holds VALUE; '!~' none holds it;
#                  '#=' the list has VALUE entries
# With EXIT 2 or more, stdout must be empty and only 'stderr' is checked;
# otherwise stdout must be one JSON object.
# Prints 'ok NAME' or 'FAIL NAME: why' per row, then 'N passed, N failed'.
import json
import os
import re
import shlex
import subprocess
import sys

MISSING = object()


def lookup(doc, path):
    for key in path.split("."):
        if key.startswith("[") and key.endswith("]") and "=" in key and isinstance(doc, list):
            field, value = key[1:-1].split("=", 1)
            doc = next((x for x in doc if isinstance(x, dict) and str(x.get(field)) == value),
                       MISSING)
            if doc is MISSING:
                return doc
        elif isinstance(doc, list):
            try:
                doc = doc[int(key)]
            except (ValueError, IndexError):
                return MISSING
        elif isinstance(doc, dict) and key in doc:
            doc = doc[key]
        else:
            return MISSING
    return doc


def texts(v):
    return [x for x in v if isinstance(x, str)] if isinstance(v, list) else [v] if isinstance(v, str) else []


def split_check(word):
    """PATH OP VALUE, the operator being the first outside [...]."""
    depth = 0
    for i, c in enumerate(word):
        depth += c == "["
        depth -= c == "]"
        if depth:
            continue
        for op in ("!~", "#=", "=", "~"):
            if word.startswith(op, i) and i > 0:
                return word[:i], op, word[i + len(op):]
    return None


def check(doc, stderr, word):
    parts = split_check(word)
    if not parts:
        return "bad check '%s'" % word
    path, op, want = parts
    got = stderr if path == "stderr" else MISSING if doc is None else lookup(doc, path)
    if got is MISSING:
        return "%s: no such field" % path
    if op == "=":
        try:
            expect = json.loads(want)
        except ValueError:
            return "%s: bad JSON value '%s'" % (path, want)
        return None if got == expect else "%s is %s, expected %s" % (path, json.dumps(got), want)
    if op == "#=":
        n = len(got) if isinstance(got, list) else -1
        return None if str(n) == want else "%s has %d entries, expected %s" % (path, n, want)
    found = any(want in t for t in texts(got))
    if op == "~":
        return None if found else "%s does not hold '%s': %s" % (path, want, json.dumps(got))
    return "%s holds '%s'" % (path, want) if found else None


def run_row(pt, src, cmd, name, args, rc, checks):
    argv = [a.replace("@SRC", src) for a in shlex.split(args)]
    # a row's own --rules, after the command, wins over this one
    p = subprocess.run(pt + ["--rules", os.path.join(src, "rules"), cmd] + argv + ["--json"],
                       stdin=subprocess.DEVNULL, capture_output=True, cwd=os.environ.get("T"))
    out, err = p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")
    problems = []
    if p.returncode != int(rc):
        problems.append("exit %d, expected %s" % (p.returncode, rc))
    doc = None
    if int(rc) >= 2:
        if out:
            problems.append("stdout is not empty")
    else:
        try:
            doc = json.loads(out)
        except ValueError:
            problems.append("stdout is not one JSON object")
    words = shlex.split(checks)
    if not words:
        problems.append("the row checks nothing")
    for w in words:
        why = check(doc, err, w)
        if why:
            problems.append(why)
    return problems, err


def main():
    table, cmd = sys.argv[1], sys.argv[2]
    pt = shlex.split(os.environ["PTRUN"])
    src = os.environ["SRC"]
    npass = nfail = 0
    for n, line in enumerate(open(table, encoding="utf-8"), 1):
        line = line.rstrip("\n")
        if not line or line.startswith("#"):
            continue
        cols = line.split("\t")
        if len(cols) != 4:
            print("FAIL %s:%d: %d columns, expected 4" % (table, n, len(cols)))
            nfail += 1
            continue
        problems, err = run_row(pt, src, cmd, *cols)
        if problems:
            nfail += 1
            print("FAIL %s: %s" % (cols[0], "; ".join(problems)))
            for l in err.splitlines()[:5]:
                print("    " + l)
        else:
            npass += 1
            print("ok %s" % cols[0])
    if npass + nfail < 10:
        print("FAIL %s: only %d rows" % (table, npass + nfail))
        nfail += 1
    print("%d passed, %d failed" % (npass, nfail))
    return 1 if nfail else 0


if __name__ == "__main__":
    sys.exit(main())
