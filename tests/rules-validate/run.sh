#!/bin/sh
# Bad rule files: every problem is reported at once as file:line:col, and
# the tool refuses to classify with a partial rule set.
. "$(dirname "$0")/../lib.sh"
. "$SRC/tests/golden.sh"
golden_dir "$SRC/tests/rules-validate"
finish
