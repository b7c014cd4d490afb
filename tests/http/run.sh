#!/bin/sh
# Rule packs over HTTP (rules fetch, sources, update, remove) and the
# escalation webhook (report --post), against tests/http/server.py: a small
# server this script starts on 127.0.0.1 (plain and TLS, random free ports)
# and kills on exit. Nothing here reaches beyond loopback.
. "$(dirname "$0")/../lib.sh"
H=$SRC/tests/http
PACKS=$H/packs
if ! command -v python3 >/dev/null 2>&1; then
	echo "skipped: python3 is not installed"
	finish
	exit 0
fi

# no proxy may take loopback traffic elsewhere; short waits keep the suite fast
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY ALL_PROXY all_proxy NO_PROXY no_proxy
unset PALLAS_TRIAGE_CA_BUNDLE PALLAS_TRIAGE_HTTP_CONNECT_TIMEOUT PALLAS_TRIAGE_TEST_CRASH
export PALLAS_TRIAGE_NOW=2025-01-02T03:04:05Z
export PALLAS_TRIAGE_HTTP_TIMEOUT=5 PALLAS_TRIAGE_HTTP_BACKOFF=0.05 PALLAS_TRIAGE_HTTP_DEADLINE=5
TOKEN="tok-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')-secret"

# ---- the server ----
mkdir -p "$T/srv"
tls_args=""
if command -v openssl >/dev/null 2>&1 &&
	openssl req -x509 -newkey rsa:2048 -nodes -keyout "$T/srv/key.pem" -out "$T/srv/cert.pem" \
		-days 2 -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 >/dev/null 2>&1; then
	tls_args="$T/srv/cert.pem $T/srv/key.pem"
fi
# shellcheck disable=SC2086
python3 "$H/server.py" "$T/srv" "$PACKS" $tls_args &
spid=$!
trap 'kill "$spid" 2>/dev/null; rm -rf "$T"' EXIT
trap 'exit 130' INT TERM HUP PIPE
i=0
while [ ! -s "$T/srv/port" ] && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
if [ ! -s "$T/srv/port" ]; then
	not_ok "the test server did not start"
	finish
	exit 1
fi
U=http://127.0.0.1:$(cat "$T/srv/port")
TLS=""
[ -s "$T/srv/tls-port" ] && TLS=https://127.0.0.1:$(cat "$T/srv/tls-port")
STORE=$XDG_DATA_HOME/pallas-triage/packs

# ---- helpers ----
# t NAME STATUS COMMAND...: run it, keep stdout in $T/out and stderr in
# $T/err, check the exit status. Everything printed is also kept for the
# token check at the end.
t() {
	tn=$1 want=$2
	shift 2
	"$@" >"$T/out" 2>"$T/err" </dev/null
	got=$?
	cat "$T/out" "$T/err" >>"$T/everything"
	if [ "$got" = "$want" ]; then
		ok "$tn"
	else
		not_ok "$tn: exit $got, expected $want"
		sed 's/^/    /' "$T/out" "$T/err" | head -n 20
	fi
}
# has NAME FILE TEXT: FILE contains the fixed string TEXT
has() {
	if grep -qF -- "$3" "$2"; then ok "$1"; else not_ok "$1: no '$3' in $(basename "$2")"; sed 's/^/    /' "$2" | head -n 10; fi
}
# hasline NAME FILE LINE: FILE has a line that is exactly LINE
hasline() {
	if grep -qxF -- "$3" "$2"; then ok "$1"; else not_ok "$1: no line '$3' in $(basename "$2")"; sed 's/^/    /' "$2" | head -n 10; fi
}
# lacks NAME FILE TEXT: FILE does not contain the fixed string TEXT
lacks() {
	if [ -s "$2" ] && ! grep -qF -- "$3" "$2"; then ok "$1"; else not_ok "$1: '$3' in $(basename "$2") (or it is empty)"; sed 's/^/    /' "$2" | head -n 10; fi
}
# the installed store: every file with its checksum (not the lock)
state() {
	(cd "$STORE" 2>/dev/null && for f in *.json *.yaml; do [ -f "$f" ] && sha256sum "$f"; done)
}
same_state() {
	state >"$T/state.now"
	if cmp -s "$T/state.before" "$T/state.now"; then ok "$1"; else
		not_ok "$1"
		diff "$T/state.before" "$T/state.now" | sed 's/^/    /'
	fi
}
requests() { wc -l <"$T/srv/requests.log" | tr -d ' '; }
last_request() { tail -n 1 "$T/srv/requests.log"; }
sha_of() { sha256sum "$1" | cut -d' ' -f1; }
# seconds a bounded wait may take in all (valgrind starts slowly)
slack=3
[ -n "${VALGRIND:-}" ] && slack=30

printf 'ValueError: SPLASH_MASK_SHAPE_MISMATCH: mask block (128, 256) vs kernel block (256, 256)\n' >"$T/splash.log"

# ---- rules fetch: the safe defaults ----
t "fetch refuses http:// without --allow-http (usage)" 2 $PTRUN rules fetch "$U/packs/team.yaml"
has "  ... and says why" "$T/err" "refusing plain http URL"
check "  ... before any connection" test ! -s "$T/srv/requests.log"
t "fetch refuses a URL that is not http(s)" 2 $PTRUN rules fetch --allow-http "ftp://127.0.0.1/x.yaml"
t "fetch needs a name it can derive" 2 $PTRUN rules fetch --allow-http "$U/"
t "fetch refuses a malformed --sha256" 2 $PTRUN rules fetch --allow-http --sha256 abc "$U/packs/team.yaml"
t "sources with nothing installed" 0 $PTRUN rules sources
has "  ... says so" "$T/out" "no rule packs installed"

# ---- success ----
t "fetch installs a pack" 0 $PTRUN rules fetch --allow-http "$U/packs/team.yaml"
hasline "  ... names it, and the host only" "$T/out" "installed rule pack 'team': 1 rule from $U"
has "  ... prints the sha256" "$T/out" "sha256 $(sha_of "$PACKS/team.yaml")"
last_request >"$T/req"
has "  ... with the user agent" "$T/req" "\"user_agent\": \"pallas-triage/$($PT --version | cut -d' ' -f2)\""
t "sources lists it" 0 $PTRUN rules sources
has "  ... with its origin" "$T/out" "origin:   $U/packs/team.yaml"
has "  ... its checksum" "$T/out" "sha256:   $(sha_of "$PACKS/team.yaml")"
has "  ... and fetch time" "$T/out" "fetched:  2025-01-02T03:04:05Z"
t "sources --json" 0 $PTRUN rules sources --json
check "  ... is the documented JSON" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert [p["name"] for p in d] == ["team"], d
assert set(d[0]) == {"name", "origin", "sha256", "pinned", "fetched", "checked", "rules", "size",
                     "etag", "last_modified"}, d[0]
assert d[0]["rules"] == 1 and d[0]["pinned"] is False
' "$T/out"
t "the pack's rule classifies a log" 0 $PTRUN --json "$T/splash.log"
check "  ... as layout, by the pack rule" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["class"] == "layout", d["class"]
assert any(e["rule"] == "team.splash-mask-mismatch" for e in d["evidence"]), d["evidence"]
' "$T/out"
base_tests=$($PT rules test "$SRC/rules" | tail -n 1 | cut -d' ' -f1)
base_rules=$($PT rules validate "$SRC/rules" | sed -E 's/.*: ([0-9]+) rules.*/\1/')
t "rules test runs the pack's examples too" 0 $PTRUN rules test
check "  ... more checks than the shipped rules alone" test "$(tail -n 1 "$T/out" | cut -d' ' -f1)" -gt "$base_tests"
t "rules validate counts the pack" 0 $PTRUN rules validate
has "  ... one more rule" "$T/out" ": $((base_rules + 1)) rules, "
t "rules test DIR leaves packs out" 0 $PTRUN rules test "$SRC/rules"
has "  ... the shipped rules' count" "$T/out" "$base_tests passed, 0 failed"
t "fetch with the right --sha256 pins it" 0 $PTRUN rules fetch --allow-http --sha256 "$(sha_of "$PACKS/team.yaml" | tr a-f A-F)" "$U/packs/team.yaml"
t "  ... sources shows the pin" 0 $PTRUN rules sources
has "  ... as pinned" "$T/out" "(pinned)"

# ---- failures leave the installed packs as they were ----
state >"$T/state.before"
t "404" 4 $PTRUN rules fetch --allow-http --name x "$U/404"
has "  ... says HTTP 404" "$T/err" "HTTP 404"
t "500" 4 $PTRUN rules fetch --allow-http --name x "$U/500"
has "  ... says HTTP 500" "$T/err" "HTTP 500"
start=$(date +%s)
t "slow server" 4 env PALLAS_TRIAGE_HTTP_TIMEOUT=1 $PTRUN rules fetch --allow-http --name x "$U/slow"
has "  ... times out" "$T/err" "timed out after 1.0 s"
check "  ... within the timeout" test $(($(date +%s) - start)) -le "$slack"
t "truncated body" 4 $PTRUN rules fetch --allow-http --name x "$U/truncated"
has "  ... is noticed" "$T/err" "cut short"
t "oversize body (Content-Length)" 4 $PTRUN rules fetch --allow-http --name x "$U/huge"
has "  ... is refused" "$T/err" "larger than the 4194304-byte limit"
t "oversize body (chunked, no length)" 4 $PTRUN rules fetch --allow-http --name x "$U/huge-chunked"
has "  ... is refused too" "$T/err" "larger than the 4194304-byte limit"
t "wrong checksum" 3 $PTRUN rules fetch --allow-http --name x --sha256 "$(printf '%064d' 0)" "$U/packs/team.yaml"
has "  ... is a mismatch" "$T/err" "checksum mismatch"
t "invalid pack" 3 $PTRUN rules fetch --allow-http "$U/packs/invalid.yaml"
has "  ... reports the unknown key" "$T/err" "invalid.yaml:8:5: error: unknown key 'severty'"
has "  ... the bad weight" "$T/err" "invalid.yaml:7:13: error: 'weight'"
has "  ... and the bad regex" "$T/err" "invalid.yaml:11:11: error: bad regex"
t "a pack whose examples fail" 3 $PTRUN rules fetch --allow-http "$U/packs/failing.yaml"
has "  ... names the example" "$T/err" "team.wrong-example: match example 1 did not fire"
t "a shipped id without overrides" 3 $PTRUN rules fetch --allow-http "$U/packs/dup.yaml"
has "  ... asks for overrides" "$T/err" "must say 'overrides: true'"
t "an id of another pack" 3 $PTRUN rules fetch --allow-http "$U/packs/clash.yaml"
t "redirect loop" 4 $PTRUN rules fetch --allow-http --name x "$U/redirect-loop"
has "  ... hits the limit" "$T/err" "too many redirects (more than 5)"
same_state "after all that, the installed packs are unchanged"
t "  ... and still load" 0 $PTRUN --json "$T/splash.log"

# ---- redirects, overrides ----
t "a redirect chain within the limit is followed" 0 $PTRUN rules fetch --allow-http --name redir "$U/redirect/3/etag-v2.yaml"
t "  ... removed again" 0 $PTRUN rules remove redir
t "a pack may override a shipped rule" 0 $PTRUN rules fetch --allow-http "$U/packs/override.yaml"
t "  ... explain shows it" 0 $PTRUN explain capacity.vmem-stack-oom
has "  ... with the pack's wording" "$T/out" "team wording"
t "  ... remove it" 0 $PTRUN rules remove override
has "  ... says so" "$T/out" "removed rule pack 'override'"
t "  ... the shipped rule is back" 0 $PTRUN explain capacity.vmem-stack-oom
if grep -qF "team wording" "$T/out"; then not_ok "  ... with the shipped wording"; else ok "  ... with the shipped wording"; fi
t "remove an unknown pack" 2 $PTRUN rules remove override

# ---- TLS: certificate checks and no downgrade ----
if [ -n "$TLS" ]; then
	export PALLAS_TRIAGE_CA_BUNDLE="$T/srv/cert.pem"
	t "https with a trusted certificate" 0 $PTRUN rules fetch --name tls "$TLS/packs/etag-v2.yaml"
	t "  ... removed again" 0 $PTRUN rules remove tls
	n=$(requests)
	t "redirect from https to http is refused" 4 $PTRUN rules fetch --name x "$TLS/to-http/team.yaml"
	has "  ... says so" "$T/err" "refusing the redirect from https to '$U'"
	t "  ... even with --allow-http" 4 $PTRUN rules fetch --allow-http --name x "$TLS/to-http/team.yaml"
	has "  ... says so" "$T/err" "refusing the redirect from https"
	check "  ... and the http URL is never asked" test "$(requests)" -eq $((n + 2))
	unset PALLAS_TRIAGE_CA_BUNDLE
	t "https with an untrusted certificate" 4 $PTRUN rules fetch --name x "$TLS/packs/team.yaml"
	has "  ... is refused" "$T/err" "certificate"
else
	echo "skip TLS cases: openssl is not installed"
fi

# ---- ETag round trip, update, last good version ----
t "fetch a pack with an ETag" 0 $PTRUN rules fetch --allow-http --name etagged "$U/etag/e1"
t "  ... sources shows it" 0 $PTRUN rules sources
has "  ... the ETag" "$T/out" 'etag:     "v1"'
t "update an unchanged pack" 0 $PTRUN rules update --allow-http etagged
has "  ... not modified" "$T/out" "etagged: not modified"
last_request >"$T/req"
has "  ... sent If-None-Match" "$T/req" '"if_none_match": "\"v1\""'
has "  ... and If-Modified-Since" "$T/req" '"if_modified_since": "Mon, 06 Jan 2025 10:00:00 GMT"'
t "update needs --allow-http for an http pack" 2 $PTRUN rules update etagged
t "update of an unknown name" 2 $PTRUN rules update --allow-http nope
curl_get() { python3 -c 'import sys, urllib.request; urllib.request.urlopen(sys.argv[1]).read()' "$1"; }
curl_get "$U/control/e1/2"
t "update a changed pack" 0 $PTRUN rules update --allow-http
has "  ... updates it" "$T/out" "etagged: updated: 1 rule, sha256 $(sha_of "$PACKS/etag-v2.yaml")"
has "  ... and leaves the other alone" "$T/out" "team: unchanged"
printf 'TEAM_GRID_SPEC_ERROR_V2 in kernel\n' >"$T/grid.log"
t "  ... the new version is used" 0 $PTRUN --json "$T/grid.log"
has "  ... by its new rule" "$T/out" "team.grid-spec-v2"
state >"$T/state.before"
curl_get "$U/control/e1/fail"
t "update when the origin fails" 4 $PTRUN rules update --allow-http etagged
has "  ... keeps the last good version" "$T/err" "etagged: cannot fetch '$U': HTTP 500; keeping the installed version"
curl_get "$U/control/e1/invalid"
t "update to an invalid pack" 3 $PTRUN rules update --allow-http etagged
has "  ... keeps the last good version" "$T/err" "keeping the installed version"
same_state "  ... the store is unchanged"
t "  ... and still loads" 0 $PTRUN --json "$T/grid.log"
curl_get "$U/control/e2/1"
t "fetch pinned to version 1" 0 $PTRUN rules fetch --allow-http --name pinned --sha256 "$(sha_of "$PACKS/etag-v1.yaml")" "$U/etag/e2"
curl_get "$U/control/e2/2"
t "update of a pinned pack to other content" 3 $PTRUN rules update --allow-http pinned
has "  ... is a checksum mismatch" "$T/err" "pinned: checksum mismatch"
t "  ... removed" 0 $PTRUN rules remove pinned

# ---- interrupted installs: a crash leaves the old or the new pack ----
curl_get "$U/control/e1/1"
state >"$T/state.before"
t "crash after writing the file, before the metadata" 137 env PALLAS_TRIAGE_TEST_CRASH=after-file $PTRUN rules update --allow-http etagged
check "  ... left a file nothing refers to" test "$(ls "$STORE"/etagged.*.yaml | wc -l)" -eq 2
state | grep '\.json$' >"$T/a"
grep '\.json$' "$T/state.before" >"$T/b"
check "  ... and the old metadata" cmp -s "$T/a" "$T/b"
t "  ... the old version still loads" 0 $PTRUN --json "$T/grid.log"
has "  ... with its rule" "$T/out" "team.grid-spec-v2"
t "crash after the metadata, before cleaning up" 137 env PALLAS_TRIAGE_TEST_CRASH=after-metadata $PTRUN rules update --allow-http etagged
printf 'TEAM_GRID_SPEC_ERROR_V1 in kernel\n' >"$T/grid1.log"
t "  ... the new version loads" 0 $PTRUN --json "$T/grid1.log"
has "  ... with its rule" "$T/out" "team.grid-spec-v1"
t "the next change collects the leftovers" 0 $PTRUN rules fetch --allow-http --name redir "$U/redirect/0/etag-v2.yaml"
check "  ... one file per pack again" test "$(ls "$STORE"/*.yaml | wc -l)" -eq "$(ls "$STORE"/*.json | wc -l)"

# ---- a pack changed on disk ----
f=$(ls "$STORE"/team.*.yaml)
printf '# edited\n' >>"$f"
t "a pack edited after install stops the run" 3 $PTRUN --json "$T/splash.log"
has "  ... and says how to fix it" "$T/err" "pallas-triage rules remove team"
t "  ... remove works without loading the rules" 0 $PTRUN rules remove team
t "  ... then the rules load again" 1 $PTRUN --json "$T/splash.log"

# ---- report --post ----
if ! $PT report --help 2>/dev/null | grep -q -- '--post'; then
	not_ok "report --post: src/cmd/report.c does not hand --post to cmd_report_post() yet"
	finish
	exit 1
fi
mkdir -p "$T/s1" "$T/s2" "$T/s3"
(cd "$T/s1" && $PT session start --interpret skip "$SRC/tests/triage/capacity-scoped.log" >/dev/null 2>&1 </dev/null)
export PALLAS_TRIAGE_TOKEN="$TOKEN"
cd "$T/s1" || exit 1
n=$(requests)
t "post refuses http:// without --allow-http" 2 $PTRUN report --post "$U/hook/ok"
check "  ... before any connection" test "$(requests)" -eq "$n"
t "post the report" 0 $PTRUN report --post "$U/hook/ok" --allow-http
has "  ... says where" "$T/out" "posted the escalation report to $U (HTTP 200)"
check "  ... the files are on disk" test -s pallas-triage-report.md -a -s pallas-triage-report.json
last_request >"$T/req"
check "  ... as JSON with the markdown inside, and the bearer token" python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
assert r["method"] == "POST" and r["content_type"] == "application/json", r
assert r["authorization"] == "Bearer " + sys.argv[2], "no bearer token"
b = json.loads(r["body"])
assert list(b) == ["schema_version", "tool", "markdown", "report"], list(b)
assert b["schema_version"] == 1 and b["tool"].startswith("pallas-triage/")
assert b["markdown"] == open("pallas-triage-report.md").read()
assert b["report"] == json.load(open("pallas-triage-report.json"))
' "$T/req" "$TOKEN"
t "a webhook answering 500 twice" 0 $PTRUN report --post "$U/hook/flaky/f1/2" --allow-http
has "  ... is retried" "$T/err" "failed (HTTP 500); retrying in"
has "  ... twice" "$T/err" "(attempt 3 of 5)"
check "  ... three requests in all" test "$(grep -c '"/hook/flaky/f1/2"' "$T/srv/requests.log")" -eq 3
start=$(date +%s)
t "a webhook that stays down" 4 env PALLAS_TRIAGE_HTTP_DEADLINE=1 $PTRUN report --post "$U/hook/down" --allow-http
has "  ... gives up with a clear error" "$T/err" "cannot post to '$U': gave up after"
check "  ... within the deadline" test $(($(date +%s) - start)) -le "$slack"
has "  ... and keeps the report" "$T/err" "the report is kept in pallas-triage-report.md"
check "  ... on disk" test -s pallas-triage-report.md -a -s pallas-triage-report.json
free_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
start=$(date +%s)
t "a webhook that refuses connections" 4 $PTRUN report --post "http://127.0.0.1:$free_port/hook" --allow-http
has "  ... says why" "$T/err" "cannot post to 'http://127.0.0.1:$free_port': cannot connect ("
check "  ... is not retried: nothing listens there" sh -c "! grep -q 'retrying\|gave up after' '$T/err'"
check "  ... and fails at once, not after the 15 s of backoff" test $(($(date +%s) - start)) -le 3
t "a slow webhook" 4 env PALLAS_TRIAGE_HTTP_TIMEOUT=0.5 PALLAS_TRIAGE_HTTP_DEADLINE=1.2 $PTRUN report --post "$U/hook/slow" --allow-http
has "  ... times out" "$T/err" "timed out after"
n=$(requests)
t "a 404 is final" 4 $PTRUN report --post "$U/hook/404" --allow-http
check "  ... after one request" test "$(requests)" -eq $((n + 1))
t "a redirecting webhook is not followed" 4 $PTRUN report --post "$U/hook/redirect" --allow-http
check "  ... the report stays" test -s pallas-triage-report.md -a -s pallas-triage-report.json
t "a token with a newline is refused" 2 env PALLAS_TRIAGE_TOKEN="$TOKEN
X-Evil: 1" $PTRUN report --post "$U/hook/ok" --allow-http
cd "$T/s2" || exit 1
t "no session and no report: nothing to post" 1 $PTRUN report --post "$U/hook/ok" --allow-http
cp "$T/s1/pallas-triage-report.md" "$T/s1/pallas-triage-report.json" .
t "no session, report files there: they are posted" 0 $PTRUN report --post "$U/hook/ok" --allow-http
cd "$T/s3" || exit 1
printf '# r\n' >pallas-triage-report.md
printf '{"broken": \n' >pallas-triage-report.json
t "a damaged report JSON is not sent" 3 $PTRUN report --post "$U/hook/ok" --allow-http
cd "$T" || exit 1

# ---- text from a server or a pack reaches no terminal raw ----
t "a pack with escapes in its headers and texts installs" 0 $PTRUN rules fetch --allow-http "$U/evil-headers/evil.yaml"
t "  ... rules sources" 0 $PTRUN rules sources
check "  ... shows no raw control byte from ETag or Last-Modified" no_raw_controls "$T/out"
has "  ... but the ETag, escaped" "$T/out" 'etag:     "v1\x1b]52;c;cHduZWQ=\x07\x1b[2J'
check "  ... its raw 0x9b kept as U+FFFD" grep -qF "$(printf '\\u001b[2J\357\277\27531m')" "$XDG_DATA_HOME/pallas-triage/packs/evil.json"
has "  ... and Last-Modified" "$T/out" 'modified: Mon, 06 Jan 2025 \x1b]0;pwned\x07 10:00:00 GMT'
t "  ... rules sources --json" 0 $PTRUN rules sources --json
check "  ... is strict UTF-8 JSON (the raw 0x9b as U+FFFD)" strict_json "$T/out"
t "  ... rules list" 0 $PTRUN rules list
check "  ... shows the pack's message with no raw control byte" no_raw_controls "$T/out"
has "  ... escaped, C1 included" "$T/out" 'evil \x1b]52;c;cHduZWQ=\x07 \x1b[2J \xc2\x9b31m message'
t "  ... explain" 0 $PTRUN explain team.evil-message
check "  ... shows no raw control byte either" no_raw_controls "$T/out"
has "  ... the explanation escaped line by line" "$T/out" 'line one \x1b]0;pwned\x07'
t "  ... removed" 0 $PTRUN rules remove evil
t "a pack with escapes in a key is refused" 3 $PTRUN rules fetch --allow-http "$U/packs/evil-key.yaml"
check "  ... the error shows no raw control byte" no_raw_controls "$T/err"
has "  ... but the key, escaped" "$T/err" "unknown key 'sev\x1b]0;pwned\x07\x1b[2Jerty'"

# ---- no URL in a message shows credentials, a path or a query ----
SECRET="pw$(od -An -N6 -tx1 /dev/urandom | tr -d ' \n')"
CU="http://alice:$SECRET@${U#http://}"
t "fetch from a URL with a password and a query token" 0 $PTRUN rules fetch --allow-http --name cred "$CU/packs/override.yaml?token=$SECRET"
hasline "  ... names the host only" "$T/out" "installed rule pack 'cred': 1 rule from $U"
t "  ... sources" 0 $PTRUN rules sources
has "  ... lists the origin with its path" "$T/out" "origin:   $U/packs/override.yaml?..."
lacks "  ... but without password or token" "$T/out" "$SECRET"
t "  ... removed" 0 $PTRUN rules remove cred
t "a URL that is not https" 2 $PTRUN rules fetch "ftp://alice:$SECRET@127.0.0.1/x/$SECRET.yaml?t=$SECRET"
lacks "  ... the message hides password, path and query" "$T/err" "$SECRET"
has "  ... and names the host" "$T/err" "'ftp://127.0.0.1' is not an https:// URL"
t "a URL that does not parse" 2 $PTRUN rules fetch "https://alice:$SECRET@[::1/x/$SECRET.yaml?t=$SECRET"
lacks "  ... hides them too" "$T/err" "$SECRET"
t "a plain http URL without --allow-http" 2 $PTRUN rules fetch "$CU/packs/team.yaml?token=$SECRET"
lacks "  ... hides them too" "$T/err" "$SECRET"
t "a fetch that fails" 4 $PTRUN rules fetch --allow-http --name x "$CU/404/$SECRET?token=$SECRET"
hasline "  ... says where, host only" "$T/err" "pallas-triage: error: cannot fetch '$U': HTTP 404"
cd "$T/s1" || exit 1
t "a post that fails" 4 $PTRUN report --post "$CU/hook/404/$SECRET?token=$SECRET" --allow-http
lacks "  ... hides password, path and query" "$T/err" "$SECRET"
t "a post to a URL that is not https" 2 $PTRUN report --post "ftp://alice:$SECRET@127.0.0.1/hook/$SECRET"
lacks "  ... hides them too" "$T/err" "$SECRET"

# ---- a stalled TLS handshake names the timeout that fired ----
start=$(date +%s)
t "a server that accepts but never speaks TLS" 4 env PALLAS_TRIAGE_HTTP_CONNECT_TIMEOUT=1 PALLAS_TRIAGE_HTTP_TIMEOUT=20 $PTRUN rules fetch --name x "https://127.0.0.1:$(cat "$T/srv/stall-port")/x.yaml"
has "  ... names the connect timeout" "$T/err" "timed out after 1.0 s, the connect timeout: the TLS handshake did not finish"
lacks "  ... not the total one" "$T/err" "20.0 s"
check "  ... and stops at it" test $(($(date +%s) - start)) -le "$slack"

# ---- report --post sends only regular report files ----
CRED="aws-secret-$(od -An -N6 -tx1 /dev/urandom | tr -d ' \n')"
printf 'aws_secret_access_key = %s\n' "$CRED" >"$T/credentials"
mkdir -p "$T/s4" && cd "$T/s4" || exit 1
ln -s "$T/credentials" pallas-triage-report.md
cp "$T/s1/pallas-triage-report.json" .
nreq=$(requests)
t "no session, the report a planted symlink: nothing is sent" 3 $PTRUN report --post "$U/hook/ok" --allow-http
has "  ... says why" "$T/err" "'./pallas-triage-report.md' is a symbolic link"
check "  ... before any request" test "$(requests)" -eq "$nreq"
rm pallas-triage-report.md
cp "$T/s1/pallas-triage-report.md" .
rm pallas-triage-report.json
ln -s "$T/s1/pallas-triage-report.json" pallas-triage-report.json
t "  ... the same for the JSON file" 3 $PTRUN report --post "$U/hook/ok" --allow-http
check "  ... nothing sent" test "$(requests)" -eq "$nreq"
cd "$T/s1" || exit 1
mv pallas-triage-report.md keep.md
ln -s "$T/credentials" pallas-triage-report.md
t "with a session, a planted report symlink is not written through" 4 $PTRUN report --post "$U/hook/ok" --allow-http
has "  ... says why" "$T/err" "refusing to replace 'pallas-triage-report.md': it is a symbolic link"
check "  ... the file it points to is unchanged" grep -qF "$CRED" "$T/credentials"
check "  ... nothing sent" test "$(requests)" -eq "$nreq"
rm pallas-triage-report.md
mv keep.md pallas-triage-report.md
lacks "the credentials never reached the server" "$T/srv/requests.log" "$CRED"

# ---- the webhook body is strict UTF-8, whatever the log held ----
mkdir -p "$T/s5" && cd "$T/s5" || exit 1
{ printf 'bad bytes \377\376 \300\257 \355\240\200\n'; sed 's/$/ \xc3\x28 \xff/' "$SRC/tests/triage/capacity-scoped.log"; } >bad.log
$PT session start --interpret skip bad.log >/dev/null 2>&1
t "post the report of a log with invalid UTF-8" 0 $PTRUN report --post "$U/hook/ok" --allow-http
check "  ... the body the server got is strict UTF-8 JSON" strict_json "$T/srv/last-body.bin"
check "  ... with U+FFFD for the bad bytes" python3 -c 'import sys; assert "\ufffd" in open(sys.argv[1], "rb").read().decode()' "$T/srv/last-body.bin"
check "  ... the report JSON on disk too" strict_json pallas-triage-report.json

# ---- files honour the umask ----
(umask 077 && $PT rules fetch --allow-http --name modes "$U/packs/override.yaml" >/dev/null 2>&1)
check "under umask 077 an installed pack's files are 0600" test "$(stat -c %a "$STORE"/modes.json "$STORE"/modes.*.yaml | sort -u)" = 600
$PT rules remove modes >/dev/null 2>&1
cd "$T" || exit 1

# ---- the token never shows ----
if grep -rqF -- "$TOKEN" "$T/everything" "$T/s1" "$T/s2" "$XDG_DATA_HOME"; then
	not_ok "the token appears in output, reports or state"
	grep -rlF -- "$TOKEN" "$T/everything" "$T/s1" "$T/s2" "$XDG_DATA_HOME" | sed 's/^/    /'
else
	ok "the token appears in no output, report, session or pack file"
fi
check "  ... though the server got it" grep -qF "Bearer $TOKEN" "$T/srv/requests.log"

finish
