# Interpret mode "no" rules out a logic bug; the precision rung then fails
# too. With every numerics explanation ruled out the walk says so and stops
# with that finding (exit 1, the report leads with it), instead of moving to
# a subkind it ruled out. The interpret-mode test, answered, is not offered
# again as the first numerics rung.
$PT session start numerics.log >/dev/null
$PT session resume --answers answers
echo "exit $?"
$PT session status
sed -n 3p pallas-triage-report.md
