# A resolved session: nothing left to try.
mkdir .pallas-triage && cp session.json .pallas-triage/
$PT report --format md
