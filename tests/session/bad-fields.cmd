# Strict types: each message names the field.
$PT session start cap.log >/dev/null
$PT attempt --interpret no >/dev/null
$PT attempt --result same >/dev/null
cp .pallas-triage/session.json good.json
try() { # a sed program that breaks the good file
	sed "$1" good.json >.pallas-triage/session.json
	$PT session status >/dev/null; echo "exit $?"
}
try 's/"schema_version": 2/"schema_version": 3/'
try 's/"schema_version": 2/"schema_version": "2"/'
try '/"schema_version"/d'
try 's/"result": "same"/"result": "maybe"/'
try 's/"result": "same"/"result": 3/'
try 's/"n": 1/"n": 2/'
try 's/"status": "in-progress"/"status": null/'
try 's/"confidence": 0.9/"confidence": 9/'
try 's/"used": "20.0M"/"used": 20/'
try 's/"ruled_out": \[/"ruled_out": [ 7, /'
try 's/"skipped": \[\]/"skipped": {}/'
try 's/^}$/} trailing/'
try 's/"log_digest": "[0-9a-f]*"/"log_digest": "not-a-digest"/'
try 's/"source": "interpret"/"source": "hearsay"/'
try 's/"asserted": \[\]/"asserted": [{"context": 3}]/'
try 's/"latest": null/"latest": []/'
