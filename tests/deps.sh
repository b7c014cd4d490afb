#!/bin/sh
# The dependencies of the build, the tests and the benchmark.
#
# Usage: tests/deps.sh check|install build|test|bench
#   check    say what is missing and the command that installs it; exit 1
#            if anything is (plain `make`: a build never installs anything)
#   install  as root on Debian, install what is missing with apt-get
#            (`make demo`, `make test`, `make bench`); otherwise as check
set -eu
mode=${1:?usage: tests/deps.sh check|install build|test|bench}
what=${2:-build}
pkgs=""
have_pc() { pkg-config --exists "$1" 2>/dev/null; }
command -v pkg-config >/dev/null 2>&1 || pkgs="$pkgs pkg-config"
command -v cc >/dev/null 2>&1 || command -v gcc >/dev/null 2>&1 || pkgs="$pkgs gcc"
command -v make >/dev/null 2>&1 || pkgs="$pkgs make"
have_pc yaml-0.1 || pkgs="$pkgs libyaml-dev"
have_pc libcjson || pkgs="$pkgs libcjson-dev"
have_pc libcurl || pkgs="$pkgs libcurl4-openssl-dev"
have_pc libpcre2-8 || pkgs="$pkgs libpcre2-dev"
if [ "$what" = test ] || [ "$what" = bench ]; then
	command -v python3 >/dev/null 2>&1 || pkgs="$pkgs python3"
	command -v tmux >/dev/null 2>&1 || pkgs="$pkgs tmux"
	command -v less >/dev/null 2>&1 || pkgs="$pkgs less"
	command -v openssl >/dev/null 2>&1 || pkgs="$pkgs openssl"
	command -v script >/dev/null 2>&1 || pkgs="$pkgs bsdutils"
	command -v npm >/dev/null 2>&1 || pkgs="$pkgs nodejs npm"
fi
# then the MCP suite's client, from npm (tests/mcp/sdk.sh)
sdk() { exec sh "$(dirname "$0")/mcp/sdk.sh" "$mode" "$what"; }
if [ "$what" = bench ]; then
	[ -x /usr/bin/time ] || pkgs="$pkgs time"
	command -v rg >/dev/null 2>&1 || pkgs="$pkgs ripgrep"
	command -v hyperfine >/dev/null 2>&1 || pkgs="$pkgs hyperfine"
fi
[ -z "$pkgs" ] && sdk
if [ "$mode" != install ] || [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
	echo "pallas-triage: missing dependencies:$pkgs" >&2
	echo "install them with:  sudo apt-get update && sudo apt-get install -y$pkgs" >&2
	[ "$mode" = install ] || echo "(as root, 'make demo' and 'make test' install them)" >&2
	exit 1
fi
echo "installing:$pkgs" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq </dev/null >&2
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $pkgs </dev/null >&2
sdk
