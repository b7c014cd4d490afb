# --redact in the JSON report.
mkdir .pallas-triage && cp session.json .pallas-triage/
$PT report --redact --format json | grep -n -e '~' -e '<host>' -e 'alice' -e 't1v-n' -e 'x1b' -e redacted
