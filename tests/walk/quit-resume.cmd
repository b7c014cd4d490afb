# quit saves; resume goes on at the next rung, and a new log moves the walk
# to the layout ladder.
$PT session start cap.log >/dev/null
$PT session resume --answers answers
echo "exit $?"
$PT session resume --answers answers2
echo "exit $?"
$PT session status
