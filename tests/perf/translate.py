#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Translate the rules' PCRE2 patterns for the peers of `make bench`.

Usage: translate.py PATTERNS.pcre OUT.ere OUT.rg [OUT.peer]

The benchmark does not define the rule language: a pattern this script
cannot translate, or that a peer refuses once translated, is skipped and
counted, never an error. Every peer gets the same patterns (those that
translate for both), and the summary line on stderr says how many:

  translate: 673 patterns; 672 for grep and rg (1 skipped: ...); ...

OUT.ere is for GNU `grep -E -f` in the C locale (POSIX ERE with GNU's \\b):
\\d -> [0-9], \\w -> [[:alnum:]_], \\s -> [[:space:]], groups of any kind ->
(...), lazy and possessive quantifiers lose their suffix, and letters under
(?i) are spelled [xX] (so one grep run does everything).
OUT.rg is for ripgrep's Rust engine (--no-unicode), which joins all
patterns into one alternation: each pattern is wrapped in (?:...) so that
an inline (?i) cannot leak into the next, capture names are dropped (they
repeat across rules), possessive quantifiers and atomic groups become
plain ones, and escaped punctuation Rust does not know is unescaped.
OUT.peer holds the same patterns in Python's re syntax, one per line: what
gen_log.py counts to know how many lines the peers must report.

Inline flags follow PCRE2: (?i) holds to the end of its group, later
alternatives included ("a|(?i)b|c" makes b and c caseless). Lookarounds
((?!...), (?=...), (?<!...), (?<=...)) are dropped: neither peer has them,
and without one a pattern matches a superset of lines, so the counts can
only grow (gen_log.py counts with them dropped too).
"""
import os
import re
import subprocess
import sys
import tempfile

ERE_SPECIAL = set(".[]()*+?{}|^$\\")
RUST_META = set("\\.+*?()|[]{}^$#&-~")
POSIX_PY = {"alpha": "a-zA-Z", "digit": "0-9", "alnum": "a-zA-Z0-9", "upper": "A-Z", "lower": "a-z",
            "space": " \\t\\n\\r\\f\\v", "xdigit": "0-9A-Fa-f", "blank": " \\t", "word": "\\w",
            "punct": "!-/:-@\\[-`{-~"}
TARGETS = ("ere", "rg", "py")


class Untranslatable(ValueError):
    pass


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
    raise Untranslatable("unbalanced group")


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
            k = p.find(":]", j + 2)
            if k < 0:
                raise Untranslatable("unterminated POSIX class")
            j = k + 1
        j += 1
    if j >= len(p):
        raise Untranslatable("unterminated class")
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


def hex_char(p, i):
    """p[i:] starts with \\x: (the character, index after), ASCII only."""
    m = re.match(r"\\x([0-9A-Fa-f]{2})|\\x\{([0-9A-Fa-f]{1,6})\}", p[i:])
    if not m:
        raise Untranslatable("bad \\x escape")
    code = int(m.group(1) or m.group(2), 16)
    if not 0x20 <= code < 0x7f:
        raise Untranslatable("\\x escape of a control or non-ASCII byte")
    return chr(code), i + m.end()


def literal(c, target, icase):
    """One literal character outside a class."""
    if target == "ere":
        if icase and c.isalpha():
            return "[%s%s]" % (c.lower(), c.upper())
        return "\\" + c if c in ERE_SPECIAL else c
    if target == "rg":
        return "\\" + c if c in RUST_META else c
    return re.escape(c)


def escape(p, i, target, icase):
    """p[i] == '\\' outside a class: (text, index after)."""
    if i + 1 >= len(p):
        raise Untranslatable("trailing backslash")
    e = p[i + 1]
    if e == "x":
        c, j = hex_char(p, i)
        return literal(c, target, icase), j
    if not e.isalnum():
        return literal(e, target, icase), i + 2
    ere = {"d": "[0-9]", "D": "[^0-9]", "w": "[[:alnum:]_]", "W": "[^[:alnum:]_]",
           "s": "[[:space:]]", "S": "[^[:space:]]", "b": "\\b", "B": "\\B", "t": "\t",
           "A": "^", "z": "$", "Z": "$"}
    if target == "ere" and e in ere:
        return ere[e], i + 2
    if target != "ere" and e in "dDwWsSbBtr":
        return "\\" + e, i + 2
    if e == "Z" or (e == "z" and target == "py"):
        return "$", i + 2
    if e in "Az" and target == "rg":
        return "\\" + e, i + 2
    if e == "A":
        return "\\A", i + 2
    raise Untranslatable("escape \\%s" % e)


def parse_class(body):
    """A PCRE class body -> (negated, items): ("ch", c), ("range", lo, hi),
    ("esc", letter) for \\d \\w \\s \\D \\W \\S, ("posix", name, negated)."""
    neg = body.startswith("^")
    if neg:
        body = body[1:]
    items, i = [], 0

    def char_at(i):
        c = body[i]
        if c != "\\":
            return c, i + 1
        if i + 1 >= len(body):
            raise Untranslatable("trailing backslash in a class")
        e = body[i + 1]
        if e == "x":
            return hex_char(body, i)
        if e == "t":
            return "\t", i + 2
        if e == "n":
            return "\n", i + 2
        if not e.isalnum():
            return e, i + 2
        raise Untranslatable("escape \\%s in a class" % e)

    while i < len(body):
        c = body[i]
        if c == "\\" and i + 1 < len(body) and body[i + 1] in "dDwWsS":
            items.append(("esc", body[i + 1]))
            i += 2
            continue
        if c == "[" and body[i + 1:i + 2] == ":":
            j = body.index(":]", i) + 2
            name = body[i + 2:j - 2]
            pneg = name.startswith("^")
            name = name.lstrip("^")
            if name not in POSIX_PY:
                raise Untranslatable("POSIX class [:%s:]" % name)
            items.append(("posix", name, pneg))
            i = j
            continue
        lo, j = char_at(i)
        if j + 1 < len(body) and body[j] == "-" and body[j + 1] != "]":
            hi, k = char_at(j + 1)
            items.append(("range", lo, hi))
            i = k
            continue
        items.append(("ch", lo))
        i = j
    return neg, items


def klass(body, target, icase):
    neg, items = parse_class(body)
    if target == "ere":
        return ere_class(neg, items, icase)
    out = []
    for it in items:
        if it[0] == "esc":
            out.append("\\" + it[1])
        elif it[0] == "posix":
            if target == "rg":
                out.append("[:%s%s:]" % ("^" if it[2] else "", it[1]))
            elif it[2]:
                raise Untranslatable("negated POSIX class for Python")
            else:
                out.append(POSIX_PY[it[1]])
        else:
            chars = it[1:]
            esc = [("\\" + c if c in "[]\\-^&~" else c) if c not in "\t\n" else ("\\t" if c == "\t" else "\\n")
                   for c in chars]
            out.append("-".join(esc))
    # under (?i) the class is inside a (?i:...) group of its own
    return "[" + ("^" if neg else "") + "".join(out) + "]"


def ere_class(neg, items, icase):
    """POSIX bracket expression: ']' first, '^' not first, '-' last."""
    chars, named = [], []
    for it in items:
        if it[0] == "esc":
            e = it[1]
            if e.isupper():
                raise Untranslatable("negated \\%s inside a class" % e)
            named += {"d": ["[:digit:]"], "w": ["[:alnum:]", "_"], "s": ["[:space:]"]}[e]
        elif it[0] == "posix":
            if it[2]:
                raise Untranslatable("negated POSIX class")
            named.append("[:%s:]" % it[1])
        elif it[0] == "range":
            lo, hi = it[1], it[2]
            if lo == "\n" or hi == "\n":
                raise Untranslatable("newline range")
            chars.append(lo + "-" + hi)
            if icase and lo.isalpha() and hi.isalpha():
                chars.append(lo.swapcase() + "-" + hi.swapcase())
        else:
            c = it[1]
            if c == "\n":
                continue  # a line holds no newline: [^...\n] means the same without it
            chars.append(c)
            if icase and c.isalpha():
                chars.append(c.swapcase())
    close = "]" if "]" in chars else ""
    dash = "-" if "-" in chars else ""
    caret = "^" if "^" in chars else ""
    rest = [x for x in chars if x not in ("]", "-", "^")]
    s = close + "".join(rest) + "".join(named) + caret + dash
    if not s:
        if neg:
            return "."
        raise Untranslatable("empty class")
    if s == "^":
        s = "\\^"
    return "[" + ("^" if neg else "") + s + "]"


FLAGS = re.compile(r"\(\?([a-zA-Z]*)(?:-([a-zA-Z]*))?([:)])")


def group_open(p, i, target, icase, out, stack):
    """p[i] == '(' : emit the group's opening; returns (index after, icase)."""
    if p.startswith("(*", i):
        raise Untranslatable("backtracking verb")
    m = FLAGS.match(p, i) if p.startswith("(?", i) and not p.startswith("(?:", i) else None
    if m:
        on, off, kind = m.group(1), m.group(2) or "", m.group(3)
        if set(on + off) - {"i"} or (not on and not off):
            raise Untranslatable("inline flags (?%s)" % (on + ("-" + off if off else "")))
        new = ("i" in on) and "i" not in off
        if kind == ")":
            # to the end of the enclosing group: a scoped group that closes with it
            if target != "ere" and new != icase:
                out.append("(?i:" if new else "(?-i:")
                stack[-1][1] += 1
            return m.end(), new
        stack.append([icase, 0])
        out.append("(" if target == "ere" else ("(?i:" if new else "(?-i:") if new != icase else "(?:")
        return m.end(), new
    if p.startswith(("(?:", "(?>"), i):
        j = i + 3
    elif p.startswith("(?P<", i) or (p.startswith("(?<", i) and p[i + 3:i + 4] not in ("=", "!")):
        j = p.index(">", i) + 1
    elif p.startswith("(?'", i):
        j = p.index("'", i + 3) + 1
    elif p.startswith("(?", i):
        raise Untranslatable("group %s" % p[i:i + 3])
    else:
        j = i + 1
    stack.append([icase, 0])
    out.append("(" if target == "ere" else "(?:")
    return j, icase


def translate(p, target):
    """One pattern (lookarounds already dropped) for target 'ere', 'rg' or 'py'."""
    out, i, icase = [], 0, False
    stack = [[False, 0]]  # per open group: icase outside it, scoped flag groups to close with it
    while i < len(p):
        c = p[i]
        if c == "\\":
            s, i = escape(p, i, target, icase)
            out.append(s)
        elif c == "[":
            j = class_end(p, i)
            out.append(klass(p[i + 1:j - 1], target, icase))
            i = j
        elif c == "(":
            i, icase = group_open(p, i, target, icase, out, stack)
        elif c == ")":
            if len(stack) < 2:
                raise Untranslatable("unbalanced ')'")
            outer, extra = stack.pop()
            out.append(")" * extra + ")")
            icase = outer
            i += 1
        elif c in "*+?":
            out.append(c)
            i += 1
            if i < len(p) and (p[i] == "+" or (p[i] == "?" and target == "ere")):
                i += 1  # possessive or lazy: the line matches either way
        elif c == "{":
            m = re.match(r"\{\d*(?:,\d*)?\}", p[i:])
            if not m or m.group(0) in ("{}", "{,}"):
                out.append(literal("{", target, icase))
                i += 1
            else:
                out.append(m.group(0))
                i += m.end()
                if i < len(p) and (p[i] == "+" or (p[i] == "?" and target == "ere")):
                    i += 1
        elif c in "|.^$":
            out.append(c)
            i += 1
        else:
            out.append(literal(c, target, icase))
            i += 1
    if len(stack) != 1:
        raise Untranslatable("unbalanced '('")
    out.append(")" * stack[0][1])
    s = "".join(out)
    return "(?:%s)" % s if target == "rg" else s


def peer_refuses(cmd, pats, target):
    """The indices of pats that the peer's compiler refuses (bisected)."""
    def fails(idx):
        with tempfile.NamedTemporaryFile("w", suffix=".pat", delete=False, encoding="utf-8") as f:
            f.write("".join(pats[k] + "\n" for k in idx))
        open(f.name + ".empty", "wb").close()
        try:
            # an empty file to search: without a path rg would search the directory
            r = subprocess.run(cmd + [f.name, f.name + ".empty"], stdin=subprocess.DEVNULL,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               env=dict(os.environ, LC_ALL="C"))
            return r.returncode > 1 or bool(r.stderr)
        finally:
            os.unlink(f.name)
            os.unlink(f.name + ".empty")

    def bisect(idx):
        if not idx or not fails(idx):
            return []
        if len(idx) == 1:
            return idx
        mid = len(idx) // 2
        return bisect(idx[:mid]) + bisect(idx[mid:])

    try:
        return set(bisect(list(range(len(pats)))))
    except FileNotFoundError:
        print("translate: %s is not installed: its patterns are not checked" % cmd[0], file=sys.stderr)
        return set()


def translate_all(pats):
    """-> (ere, rg, py lists for the patterns both peers get, {reason: count}, lookarounds dropped)."""
    rows, skipped, look = [], {}, 0
    for p in pats:
        try:
            q = drop_lookarounds(p)
            rows.append((q != p, [translate(q, t) for t in TARGETS]))
        except (Untranslatable, ValueError, IndexError) as e:
            reason = "cannot translate: %s" % (e.args[0] if isinstance(e, Untranslatable) else "syntax")
            skipped[reason] = skipped.get(reason, 0) + 1
    bad = set()
    for k, (name, cmd) in enumerate((("grep", ["grep", "-E", "-c", "-f"]), ("rg", ["rg", "--no-unicode", "-c", "-f"]))):
        refused = peer_refuses(cmd, [r[1][k] for r in rows], name)
        if refused:
            skipped["%s refuses the translation" % name] = len(refused - bad)
        bad |= refused
    for k, r in enumerate(rows):
        if k not in bad:
            try:
                re.compile(r[1][2].encode("utf-8"))
            except re.error:
                bad.add(k)
                skipped["Python cannot count it"] = skipped.get("Python cannot count it", 0) + 1
    kept = [r for k, r in enumerate(rows) if k not in bad]
    look = sum(1 for r in kept if r[0])
    return [r[1][0] for r in kept], [r[1][1] for r in kept], [r[1][2] for r in kept], skipped, look


def main():
    if len(sys.argv) not in (4, 5):
        sys.exit(__doc__)
    pats = [l.rstrip("\n") for l in open(sys.argv[1], encoding="utf-8") if l.strip()]
    ere, rg, py, skipped, look = translate_all(pats)
    for path, lines in zip(sys.argv[2:], (ere, rg, py)):
        with open(path, "w", encoding="utf-8") as f:
            f.write("".join(l + "\n" for l in lines))
    nskip = sum(skipped.values())
    why = "; ".join("%d %s" % (n, k) for k, n in sorted(skipped.items()))
    print("translate: %d patterns; %d for grep and rg (%d skipped%s); %d of them lose a lookaround"
          % (len(pats), len(ere), nskip, ": " + why if why else "", look), file=sys.stderr)


if __name__ == "__main__":
    main()
