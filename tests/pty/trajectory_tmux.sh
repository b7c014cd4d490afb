#!/bin/sh
# The five-log trajectory of tests/fixtures/trajectory through the pipe in a
# real terminal, as `python k.py 2>&1 | pallas-triage` five times (issue
# 20): each log is the result of the last change, each new class moves the
# walk to its ladder, the bare mismatch is numerics by the session's kernel
# context, and the session is still in progress at the end. The shipped
# rules, not the walk fixture's.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/tmux.sh"
export PALLAS_TRIAGE_RULES="$SRC/rules"
FX="$SRC/tests/fixtures/trajectory"
mkdir -p "$T/traj" && cp "$FX"/*.log "$T/traj/"
S="$T/traj/.pallas-triage/session.json"
sj() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($1)" "$S"; }

start traj 'cat 1-vmem-oom.log | "$PT"'
wait_for "attempt 1 of 10: capacity.raise-scoped-limit" && wait_for "vmem_limit_bytes=32505856" &&
	answer "result> " "q" && wait_for "EXIT=0" && rc_ok=1 || rc_ok=0
check "run 1: the OOM starts the session on the limit rung (31 MiB)" [ "$rc_ok" = 1 ]

start traj 'cat 2-vmem-oom-raised.log | "$PT"'
wait_for "this log is the result of attempt 1 (capacity.raise-scoped-limit): the same error as before" &&
	answer "changed> " "vmem_limit_bytes=34 MiB" &&
	wait_for "attempt 2 of 10: capacity.raise-scoped-limit" && wait_for "vmem_limit_bytes=48234496" &&
	answer "result> " "q" && wait_for "EXIT=0" && rc_ok=1 || rc_ok=0
check "run 2: the same OOM at 36.10M: the limit rung again, at 46 MiB" [ "$rc_ok" = 1 ]

start traj 'cat 3-block-shape.log | "$PT"'
wait_for "this log is the result of attempt 2 (capacity.raise-scoped-limit): a different error" &&
	answer "changed> " "" && wait_for "class changed: capacity/scoped-vmem -> layout/block-shape" &&
	wait_for "attempt 3 of 10: layout.round-block-up" && wait_for "(1, 1024, 128)" &&
	answer "result> " "q" && wait_for "EXIT=0" && rc_ok=1 || rc_ok=0
check "run 3: the block-shape error moves the walk to the layout ladder" [ "$rc_ok" = 1 ]

start traj 'cat 4-mosaic-layout.log | "$PT"'
wait_for "this log is the result of attempt 3 (layout.round-block-up): a different error" &&
	answer "changed> " "block_q=1024" && wait_for "subkind changed: layout/block-shape -> layout/relayout" &&
	answer "result> " "q" && wait_for "EXIT=0" && rc_ok=1 || rc_ok=0
check "run 4: the Mosaic layout error: the subkind changed, the class did not" [ "$rc_ok" = 1 ]
check "run 4: not called a class change" lacks_screen "class changed: layout/block-shape"

start traj 'cat 5-mismatch.log | "$PT"'
wait_for "numerics/precision: Wrong numbers" &&
	wait_for "pallas-kernel (asserted: the session's first log" &&
	wait_for "a different error" && answer "changed> " "upgraded to jax 0.8.2" &&
	wait_for "class changed: layout/relayout -> numerics/precision" &&
	wait_for "the failure changed class: does the new one reproduce under interpret mode?" &&
	answer "interpret> " "q" && wait_for "EXIT=0" && rc_ok=1 || rc_ok=0
check "run 5: the bare mismatch is numerics, by the session's kernel context" [ "$rc_ok" = 1 ]
check "run 5: not unknown/no-kernel-numbers" lacks_screen "no-kernel-numbers"

check "the session: four attempts, still in progress, on numerics" \
	test "$(sj "str(len(d['attempts'])) + d['status'] + d['current']['class']")" = "4in-progressnumerics"
check "the session: each log's class, in order" \
	test "$(sj "' '.join(a['class_after'] for a in d['attempts'])")" = "capacity layout layout numerics"
(cd "$T/traj" && "$PT" report) >"$T/traj.md" 2>&1
check "the report is headed by the current failure and the latest key line" sh -c \
	"grep -q '^# Debugging report: numerics failure' '$T/traj.md' && grep -q '^| Current failure | numerics/precision |' '$T/traj.md' &&
	 grep -q '^Mismatched elements: 2871 / 4194304' '$T/traj.md'"
finish
