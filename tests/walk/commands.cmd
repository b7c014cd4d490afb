# The prompt commands, an unknown answer, and quit; "yes" re-ranks the
# numerics mismatch to a logic bug.
$PT session start numerics.log >/dev/null
$PT session resume --answers answers
echo "exit $?"
