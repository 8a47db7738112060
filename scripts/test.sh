#!/usr/bin/env bash
# "make test": build what is needed (the debug flavour and the initramfs),
# run every host test in tests/host/ (which boot the guest as needed), and
# end with the line "N passed, N failed, N skipped".
# Usage: scripts/test.sh [TEST...]   (names of tests/host/*.sh; default: all)
. "$(dirname "$0")/lib.sh"

export TEST_FLAVOUR=${TEST_FLAVOUR:-test}
results=$LOGS/test-results.txt
passed=0 failed=0 skipped=0

count() {
	local line
	while IFS= read -r line; do
		printf '%s\n' "$line"
		case $line in
		"not ok - "*) failed=$((failed + 1)) ;;
		"ok - "*"# SKIP"*) skipped=$((skipped + 1)) ;;
		"ok - "*) passed=$((passed + 1)) ;;
		esac
	done
}

totals() {
	echo "$passed passed, $failed failed, $skipped skipped"
}

# timed NAME CMD...: run CMD, adding "NAME N s" to the timings line.
timings=()
timed() {
	local name=$1 t0=$SECONDS rc=0
	shift
	"$@" || rc=$?
	timings+=("$name $((SECONDS - t0)) s")
	return "$rc"
}

# The wall time of each step, for telling a slow machine from a slow change.
show_timings() {
	local t line=""
	for t in "${timings[@]}"; do line+="${line:+, }$t"; done
	info "took: $line; total $((SECONDS - start)) s"
}

main() {
	local t name tests=() tests_start
	start=$SECONDS
	: >"$results"
	if ! { timed packages "$TOP/scripts/deps.sh" && timed source "$TOP/scripts/source.sh" &&
		timed build "$TOP/scripts/build.sh" "$TEST_FLAVOUR" &&
		timed initramfs "$TOP/scripts/initramfs.sh"; }; then
		echo "not ok - build: kernel '$TEST_FLAVOUR' and initramfs" >"$results"
		count <"$results"
		show_timings
		totals
		exit 1
	fi
	if [ $# -gt 0 ]; then
		for name; do tests+=("$TOP/tests/host/$name.sh"); done
	else
		tests=("$TOP"/tests/host/[0-9]*.sh)
	fi
	tests_start=$SECONDS
	for t in "${tests[@]}"; do
		[ -f "$t" ] || die "no such test: $t" "tests are: $(cd "$TOP/tests/host" && ls [0-9]*.sh | sed 's/\.sh$//' | paste -sd' ')"
		stage "test ${t#"$TOP"/}"
		# Results come back on stdout; a test that dies without reporting
		# anything still counts as a failure.
		if ! bash "$t" >"$LOGS/test-current.out" 2>&1; then
			echo "not ok - ${t#"$TOP"/} exited with an error" >>"$LOGS/test-current.out"
		fi
		grep -q '^\(not \)\{0,1\}ok - ' "$LOGS/test-current.out" ||
			echo "not ok - ${t#"$TOP"/} reported no result" >>"$LOGS/test-current.out"
		count <"$LOGS/test-current.out"
		cat "$LOGS/test-current.out" >>"$results"
	done
	timings+=("tests $((SECONDS - tests_start)) s")
	info "all results: ${results#"$TOP"/}; console logs: ${LOGS#"$TOP"/}/"
	show_timings
	totals
	[ "$failed" -eq 0 ]
}

main "$@"
