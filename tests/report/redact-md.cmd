# --redact masks home directories and host names; control bytes are escaped.
mkdir .pallas-triage && cp session.json .pallas-triage/
$PT report --redact | grep -n -e '~' -e '<host>' -e 'alice' -e 't1v-n' -e 'x1b'
