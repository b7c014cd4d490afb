#!/bin/sh
# The walk in a real terminal; see walk_tmux.sh.
exec sh "$(cd "$(dirname "$0")" && pwd)/walk_tmux.sh"
