#!/bin/sh
# Golden tests of `pallas-triage LOG` with the shipped rules: several logs
# per class, negatives, decorations, malformed inputs and usage errors.
. "$(dirname "$0")/../lib.sh"
. "$SRC/tests/golden.sh"
golden_dir "$SRC/tests/triage"
finish
