#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Translate the rules' PCRE patterns for the other tools of `make bench`.

Usage: translate.py PATTERNS.pcre OUT.ere OUT.rg

OUT.ere is for GNU `grep -E -f` (POSIX ERE with GNU's \\b): \\d -> [0-9],
\\w -> [[:alnum:]_], \\s -> [[:space:]], (?:...) and (?P<n>...) -> (...),
lazy and possessive quantifiers lose their suffix, a leading (?i) becomes
[xX] letter pairs, classes are rewritten in POSIX form.
OUT.rg is for ripgrep's default (Rust) engine, which joins all patterns into
one alternation: named groups become plain groups (names may repeat across
rules) and a leading (?i) becomes a scoped (?i:...).

Both drop lookarounds ((?!...), (?=...), (?<!...), (?<=...)): neither engine
has them. A pattern without its lookahead matches a superset of lines, so
the counts can only grow; the generator's lines never depend on it (the
count check in tests/perf/bench.sh would show it). Prints a note per change class.
"""
import sys

ERE_SPECIAL = set(".[]()*+?{}|^$\\")


def skip_group(p, i):
    """p[i] == '(' : index after the matching ')'."""
    depth = 0
    while i < len(p):
        c = p[i]
        if c == "\\":
            i += 2
            continue
        if c == "[":
            i = class_end(p, i)
            continue
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    raise ValueError("unbalanced group")


def class_end(p, i):
    """p[i] == '[' : index after the class."""
    j = i + 1
    if j < len(p) and p[j] == "^":
        j += 1
    if j < len(p) and p[j] == "]":
        j += 1
    while j < len(p) and p[j] != "]":
        if p[j] == "\\":
            j += 1
        elif p[j] == "[" and p[j + 1:j + 2] == ":":
            j = p.index(":]", j + 2) + 1
        j += 1
    return j + 1


def drop_lookarounds(p):
    out, i = [], 0
    while i < len(p):
        c = p[i]
        if c == "\\":
            out.append(p[i:i + 2])
            i += 2
        elif c == "[":
            j = class_end(p, i)
            out.append(p[i:j])
            i = j
        elif p.startswith(("(?!", "(?=", "(?<!", "(?<="), i):
            i = skip_group(p, i)
        else:
            out.append(c)
            i += 1
    return "".join(out)


def ere_class(body, icase):
    """PCRE class body (between [ and ]) -> POSIX bracket expression."""
    neg = body.startswith("^")
    if neg:
        body = body[1:]
    items, named, i = [], [], 0
    while i < len(body):
        c = body[i]
        if c == "\\" and i + 1 < len(body):
            e = body[i + 1]
            i += 2
            if e == "d":
                named.append("[:digit:]")
            elif e == "w":
                named += ["[:alnum:]", "_"]
            elif e == "s":
                named.append("[:space:]")
            elif e == "t":
                items.append("\t")
            elif e == "n":
                items.append("\n")
            else:
                items.append(e)
            continue
        if c == "[" and body[i + 1:i + 2] == ":":
            j = body.index(":]", i) + 2
            named.append(body[i:j])
            i = j
            continue
        if i + 2 < len(body) and body[i + 1] == "-" and body[i + 2] != "]":
            lo, hi = c, body[i + 2]
            if hi == "\\":
                hi = body[i + 3]
                i += 1
            items.append(lo + "-" + hi)
            if icase and lo.isalpha() and hi.isalpha():
                items.append(lo.swapcase() + "-" + hi.swapcase())
            i += 3
            continue
        items.append(c)
        if icase and c.isalpha():
            items.append(c.swapcase())
        i += 1
    close = "]" if "]" in items else ""
    dash = "-" if "-" in items else ""
    caret = "^" if "^" in items else ""
    rest = [x for x in items if x not in ("]", "-", "^")]
    s = close + "".join(rest) + "".join(named) + caret + dash
    if s == "^":
        s = "\\^"  # cannot happen in our rules; keeps the output valid
    return "[" + ("^" if neg else "") + s + "]"


def to_ere(p):
    icase = p.startswith("(?i)")
    if icase:
        p = p[4:]
    out, i = [], 0
    while i < len(p):
        c = p[i]
        if c == "\\":
            e = p[i + 1]
            i += 2
            if e == "d":
                out.append("[0-9]")
            elif e == "D":
                out.append("[^0-9]")
            elif e == "w":
                out.append("[[:alnum:]_]")
            elif e == "W":
                out.append("[^[:alnum:]_]")
            elif e == "s":
                out.append("[[:space:]]")
            elif e == "S":
                out.append("[^[:space:]]")
            elif e in "bB<>":
                out.append("\\" + e)
            elif e == "t":
                out.append("\t")
            elif e in ERE_SPECIAL:
                out.append("\\" + e)
            elif icase and e.isalpha():
                out.append("[%s%s]" % (e.lower(), e.upper()))
            else:
                out.append(e)
            continue
        if c == "[":
            j = class_end(p, i)
            out.append(ere_class(p[i + 1:j - 1], icase))
            i = j
            continue
        if c == "(":
            if p.startswith("(?:", i) or p.startswith("(?>", i):
                i += 3
            elif p.startswith("(?P<", i) or (p.startswith("(?<", i) and p[i + 3] not in "=!"):
                i = p.index(">", i) + 1
            elif p.startswith("(?", i):
                raise ValueError("unsupported group in %r" % p)
            else:
                i += 1
            out.append("(")
            continue
        if c in "*+?}" and i + 1 < len(p) and p[i + 1] in "?+":
            out.append(c)  # lazy or possessive: the line matches either way
            i += 2
            continue
        if icase and c.isalpha():
            out.append("[%s%s]" % (c.lower(), c.upper()))
        else:
            out.append(c)
        i += 1
    return "".join(out)


def to_rg(p):
    """ripgrep joins the patterns into one alternation: capture names must not
    repeat and a leading (?i) must not leak into the next pattern."""
    out, i = [], 0
    while i < len(p):
        if p[i] == "\\":
            out.append(p[i:i + 2])
            i += 2
        elif p[i] == "[":
            j = class_end(p, i)
            out.append(p[i:j])
            i = j
        elif p.startswith("(?P<", i) or (p.startswith("(?<", i) and p[i + 3] not in "=!"):
            i = p.index(">", i) + 1
            out.append("(")
        else:
            out.append(p[i])
            i += 1
    q = "".join(out)
    return "(?i:%s)" % q[4:] if q.startswith("(?i)") else q


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    pats = [l.rstrip("\n") for l in open(sys.argv[1], encoding="utf-8") if l.strip()]
    look = sum(1 for p in pats if drop_lookarounds(p) != p)
    icase = sum(1 for p in pats if p.startswith("(?i)"))
    with open(sys.argv[2], "w", encoding="utf-8") as ere, open(sys.argv[3], "w", encoding="utf-8") as rg:
        for p in pats:
            q = drop_lookarounds(p)
            ere.write(to_ere(q) + "\n")
            rg.write(to_rg(q) + "\n")
    print("translate: %d patterns; %d lose a lookaround (grep and rg); %d (?i) spelled out for grep"
          % (len(pats), look, icase), file=sys.stderr)


if __name__ == "__main__":
    main()
