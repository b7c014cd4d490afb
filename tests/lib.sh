# Shared by the suites: a temp dir, a clean environment, and the counters.
# Sourced with SRC and PT set by tests/run.sh (or by hand).
set -u
SRC=${SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
PT=${PT:-$SRC/build/pallas-triage}
export LC_ALL=C TZ=UTC NO_COLOR=1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT INT TERM
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
