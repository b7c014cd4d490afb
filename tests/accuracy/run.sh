#!/bin/sh
# The classifier on hand-written logs of the five kinds it used to get wrong
# (docs/accuracy.md): cases.tsv says what each verdict must be.
. "$(dirname "$0")/../lib.sh"
python3 "$SRC/tests/accuracy/check.py" "$PT"
