#!/bin/sh
# Corpus accuracy: runs whenever ../shared/corpus is beside the project.
# Fails below 90% top-1 accuracy or on any false alarm on an unknown log.
. "$(dirname "$0")/../lib.sh"
corpus=${PALLAS_TRIAGE_CORPUS:-$SRC/../shared/corpus}
if [ ! -f "$corpus/index.tsv" ]; then
	echo "no corpus at $corpus: skipped"
	echo "0 passed, 0 failed"
	exit 0
fi
python3 "$SRC/tests/corpus/eval.py" "$PT" "$corpus" 0.90
