# Shared by the suites: a temp dir, a clean environment, and the counters.
# Sourced with SRC and PT set by tests/run.sh (or by hand).
set -u
SRC=${SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
PT=${PT:-$SRC/build/pallas-triage}
export LC_ALL=C TZ=UTC NO_COLOR=1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
trap 'exit 130' INT TERM HUP
export HOME="$T/home" XDG_DATA_HOME="$T/home/.local/share"
mkdir -p "$HOME"
unset PALLAS_TRIAGE_RULES PALLAS_TRIAGE_TOKEN
npass=0
nfail=0
if [ -n "${VALGRIND:-}" ] && [ -z "${PT_REAL:-}" ]; then
	PTRUN="valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite $PT"
else
	PTRUN=$PT
fi
ok() { npass=$((npass + 1)); echo "ok $1"; }
not_ok() { nfail=$((nfail + 1)); echo "FAIL $1"; }
# check NAME COMMAND...: the command must succeed
check() { n=$1; shift; if "$@"; then ok "$n"; else not_ok "$n"; fi; }
finish() { echo "$npass passed, $nfail failed"; [ "$nfail" -eq 0 ]; }
# lacks FILE STRING: FILE is not empty and no line of it holds STRING (a
# fixed string). `grep -qv X` would pass whenever some other line exists,
# and `! grep -q X` on empty output would pass when the command printed
# nothing at all; this passes only on real output without X.
lacks() { [ -s "$1" ] && ! grep -qF -- "$2" "$1"; }
# every_line FILE STRING: FILE is not empty and every line of it holds STRING.
every_line() { [ -s "$1" ] && ! grep -vqF -- "$2" "$1"; }
# no_raw_controls FILE: FILE is not empty, and holds no C0 control but newline
# and tab, no DEL, no C1 control, neither UTF-8 encoded (U+0080..U+009F) nor a
# raw byte 0x80..0x9f outside UTF-8 (an 8-bit terminal takes 0x9b as CSI),
# and no bidirectional control (U+061C, U+200E/F, U+202A..E, U+2066..9)
no_raw_controls() {
	python3 - "$1" <<'PY'
import sys
t = open(sys.argv[1], "rb").read().decode("utf-8", "surrogateescape")
bidi = {0x61c, 0x200e, 0x200f} | set(range(0x202a, 0x202f)) | set(range(0x2066, 0x206a))
bad = [c for c in t if (ord(c) < 32 and c not in "\n\t") or 0x7f <= ord(c) <= 0x9f
       or 0xdc80 <= ord(c) <= 0xdc9f or ord(c) in bidi]
sys.exit(1 if bad or not t else 0)
PY
}
# strict_json [--lines] FILE...: each file is one JSON document (with --lines,
# one per line) that a strict decoder reads: the bytes must be valid UTF-8
strict_json() {
	python3 - "$@" <<'PY'
import json, sys
args = sys.argv[1:]
lines = args[:1] == ["--lines"]
for path in args[1:] if lines else args:
    text = open(path, "rb").read().decode("utf-8", "strict")
    docs = [l for l in text.split("\n") if l] if lines else [text]
    if not docs:
        sys.exit("%s: empty" % path)
    for d in docs:
        json.loads(d)
PY
}
