# shellcheck shell=bash
# Test results are KTAP (docs/console.md).  A test's results are lines "ok
# N - NAME" and "not ok N - NAME", each also a line of its results file,
# its status: the file numbers them across subshells, and says whether
# the test failed (ktap_subtest).

# ktap_result STATUS NAME RESULTS: result "STATUS N - NAME", N the next
# number in file RESULTS, and add it there.
ktap_result() {
	echo "$1" >>"$3"
	echo "$1 $(wc -l <"$3") - $2"
}

# ktap_subtest N NAME OUT RESULTS: the results in file OUT as subtest N NAME
# of a KTAP document, closed by "not ok N NAME" if file RESULTS lists a
# failed result, else by "ok N NAME".
ktap_subtest() {
	local status=ok
	! grep -qx 'not ok' "$4" || status="not ok"
	printf '    KTAP version 1\n    # Subtest: %s\n' "$2"
	sed 's/^/    /' "$3"
	echo "$status $1 $2"
}
