#!/bin/sh
# Golden cases for `pallas-triage smem`: NAME.args, NAME.expected, NAME.rc, NAME.stderr
# (see tests/golden.sh). The numbers are worked out by hand in docs/calculators.md
# ("smem") and tests/unit/test_gpu.c.
. "$(dirname "$0")/../lib.sh"
. "$SRC/tests/golden.sh"
golden_dir "$SRC/tests/smem"
finish
