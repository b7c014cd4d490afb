# --output replaces a file atomically; the formats agree on the facts.
mkdir .pallas-triage && cp session.json .pallas-triage/
$PT report --output r.md; echo "exit $?"
$PT report --format json --output r.json; echo "exit $?"
$PT report --format text --output r.txt; echo "exit $?"
$PT report --output no/such/dir/r.md; echo "exit $?"
head -n 3 r.md
grep -c '"n":' r.json
grep -c '^  [0-9]*\. ' r.txt
ls
