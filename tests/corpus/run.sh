#!/bin/sh
# Corpus accuracy: runs whenever ../shared/corpus is beside the project.
# Fails below top-1 accuracy min_top1 (0.95), on any false alarm on an unknown
# log, when verdicts at confidence >= 0.8 are right less than 95% of the time,
# or when a kernel class is claimed above 0.5 without the pallas-kernel
# context (docs/accuracy.md).
. "$(dirname "$0")/../lib.sh"
corpus=${PALLAS_TRIAGE_CORPUS:-$SRC/../shared/corpus}
if [ ! -f "$corpus/index.tsv" ]; then
	echo "no corpus at $corpus: skipped"
	echo "0 passed, 0 failed"
	exit 0
fi
min_top1=0.95
python3 "$SRC/tests/corpus/eval.py" "$PT" "$corpus" "$min_top1"
