# Without --redact paths and hosts stay; control bytes are still escaped.
mkdir .pallas-triage && cp session.json .pallas-triage/
$PT report | grep -n -e 'alice' -e 't1v-n' -e 'x1b'
