#!/bin/sh
# The MCP suite's client: the official TypeScript SDK, installed with npm
# into build/mcp-sdk (git-ignored; nothing of it is committed). Called by
# tests/deps.sh for `make test`.
#
# Usage: tests/mcp/sdk.sh check|install [WHAT]   (WHAT: build, test, bench)
#        tests/mcp/sdk.sh dir                     print where it goes
# A failed install does not stop the other suites: tests/mcp/run.sh then
# fails and says why.
set -eu
SRC=$(cd "$(dirname "$0")/../.." && pwd)
PKG=@modelcontextprotocol/sdk
VERSION=1.32.2
DIR=${MCP_SDK_DIR:-$SRC/build/mcp-sdk}
mode=${1:?usage: tests/mcp/sdk.sh check|install|dir [build|test|bench]}
what=${2:-test}
if [ "$mode" = dir ]; then
	echo "$DIR"
	exit 0
fi
[ "$what" = test ] || exit 0
installed() {
	grep -q "\"version\": *\"$VERSION\"" "$DIR/node_modules/$PKG/package.json" 2>/dev/null
}
installed && exit 0
if [ "$mode" != install ]; then
	echo "pallas-triage: missing for the MCP tests: $PKG@$VERSION in $DIR ('make test' installs it)" >&2
	exit 1
fi
if ! command -v npm >/dev/null 2>&1; then
	echo "pallas-triage: cannot install $PKG for the MCP tests: npm is missing" >&2
	exit 0
fi
echo "installing: $PKG@$VERSION (npm, into $DIR)" >&2
mkdir -p "$DIR"
if ! npm install --prefix "$DIR" --no-audit --no-fund --loglevel=error "$PKG@$VERSION" </dev/null >&2 ||
	! installed; then
	echo "pallas-triage: npm could not install $PKG@$VERSION into $DIR: the MCP suite will fail" >&2
fi
exit 0
