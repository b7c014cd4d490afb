# A synchronization failure gets the InterpretParams snippet; "yes" keeps it.
$PT session start race.log >/dev/null
$PT session resume --answers answers
echo "exit $?"
