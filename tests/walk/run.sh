#!/bin/sh
# Golden transcripts of the walk cases; the format is in tests/walk/cmd-golden.sh.
here=$(cd "$(dirname "$0")" && pwd)
exec sh "$here/../walk/cmd-golden.sh" "$here"
