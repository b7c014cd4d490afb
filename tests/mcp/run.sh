#!/bin/sh
# `pallas-triage mcp` driven by a real MCP client: the official TypeScript
# SDK over stdio (tests/mcp/sdk.sh installs it), and raw JSON-RPC lines for
# what the SDK does not speak (the stateless 2026-07-28 era, broken and
# oversized lines, the older revisions). The cases are in mcp_test.mjs.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
sdk=$(sh "$here/sdk.sh" dir)
pkg="$sdk/node_modules/@modelcontextprotocol/sdk/package.json"
if ! command -v node >/dev/null 2>&1; then
	not_ok "node is missing: the MCP suite needs Node.js (tests/deps.sh install test installs it)"
	finish
	exit 1
fi
if [ ! -f "$pkg" ]; then
	not_ok "the MCP SDK is not installed in $sdk: run 'sh tests/deps.sh install test' (npm); see its message"
	finish
	exit 1
fi
MCP_SDK_DIR=$sdk T=$T exec node "$here/mcp_test.mjs"
