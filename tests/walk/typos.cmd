# Typos at the prompts: a near miss gets "did you mean", as git does for
# commands; a path typed at log> that does not exist is said so and asked
# again, not taken as the first line of a pasted log.
$PT session start numerics.log >/dev/null
$PT session resume --answers answers
echo "exit $?"
$PT session log | sed -n '2,4p'
