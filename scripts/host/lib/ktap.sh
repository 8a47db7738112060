# shellcheck shell=bash
# Test results are KTAP (docs/console.md), and a result's status is its
# line, nowhere else: whoever nests a test's results reads its status
# from them.  A test's results are lines "ok N - NAME" and "not ok N -
# NAME" at the start of a line; a nested document's lines are indented.

# The results this shell printed so far: a test prints its results from
# its own shell (a result printed from a subshell would repeat a number,
# which the parser reports as an error in the totals).
KTAP_N=0

# ktap_result STATUS NAME: result "STATUS N - NAME", N the next number.
ktap_result() {
	KTAP_N=$((KTAP_N + 1))
	echo "$1 $KTAP_N - $2"
}

# ktap_count: how many results the lines on stdin have at their top level.
ktap_count() { grep -cE '^(not )?ok [0-9]+ ' || true; }

# ktap_append STATUS NAME FILE: result "STATUS N - NAME" added to the
# results in FILE, numbered after them.
ktap_append() {
	echo "$1 $(($(ktap_count <"$3") + 1)) - $2" >>"$3"
}

# ktap_subtest N NAME OUT: the results in file OUT as subtest N NAME of a
# KTAP document, closed by "not ok N NAME" if one of them is not ok, else
# by "ok N NAME".
ktap_subtest() {
	local status=ok
	! grep -q '^not ok ' "$3" || status="not ok"
	printf '    KTAP version 1\n    # Subtest: %s\n' "$2"
	sed 's/^/    /' "$3"
	echo "$status $1 $2"
}
