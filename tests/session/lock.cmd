# A second writer waits for nobody: it fails at once and names the holder.
# Readers take no lock. The holder lets go when the file "release" appears.
$PT session start cap.log >/dev/null
flock .pallas-triage/lock sh -c 'echo 4242 > .pallas-triage/lock; touch held
	while [ ! -f release ]; do sleep 0.05; done' &
while [ ! -f held ]; do sleep 0.05; done
$PT attempt --result same; echo "exit $?"
$PT session reset; echo "exit $?"
$PT session status | head -n 1
touch release
wait
$PT attempt --result same | head -n 1
