#!/usr/bin/env bash
# "make test": check the report scripts on saved logs (tests/check/, no
# kernel needed), have make build what the chosen host tests of tests/host/
# need (each names those make targets, for its flavour, TEST_FLAVOUR, in a
# line "# needs: build initramfs"), run them, and end with the line
# "N passed, N failed, N skipped".
# Usage: scripts/test.sh [--flavour F] [TEST...]   (tests/host/TEST.sh; all)
#        scripts/test.sh --check     ("make check": tests/check/ only)
. "$(dirname "$0")/lib.sh"

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

# run_tests FILE...: run each test script, count and keep its results.
# Results come back on stdout; a test that dies without reporting anything
# still counts as a failure.
run_tests() {
	local t out=$LOGS/test-current.out
	for t; do
		stage "test ${t#"$TOP"/}"
		if ! bash "$t" >"$out" 2>&1; then
			echo "not ok - ${t#"$TOP"/} exited with an error" >>"$out"
		fi
		grep -q '^\(not \)\{0,1\}ok - ' "$out" ||
			echo "not ok - ${t#"$TOP"/} reported no result" >>"$out"
		count <"$out"
		cat "$out" >>"$results"
	done
}

# make_needs TARGET...: make the targets; a failure is a result.
make_needs() {
	run make -C "$TOP" -s --no-print-directory FLAVOUR="$TEST_FLAVOUR" "$@" && return 0
	count < <(echo "not ok - build: make $* (flavour $TEST_FLAVOUR)" | tee -a "$results")
	return 1
}

# The end of every run: timings, totals, and the exit status.
finish() {
	info "all results: ${results#"$TOP"/}; console logs: ${LOGS#"$TOP"/}/"
	show_timings
	totals
	[ "$failed" -eq 0 ] || exit 1
	exit 0
}

main() {
	local t tests=() needs=() check=0
	start=$SECONDS
	export TEST_FLAVOUR
	TEST_FLAVOUR=$(default_flavour test)
	while [ $# -gt 0 ]; do
		case $1 in
		--flavour) TEST_FLAVOUR=$2; flavour_fragments "$2" >/dev/null; shift 2 ;;
		--check) check=1; shift ;;
		*) tests+=("$TOP/tests/host/$1.sh"); shift ;;
		esac
	done
	[ ${#tests[@]} -gt 0 ] || tests=("$TOP"/tests/host/[0-9]*.sh)
	for t in "${tests[@]}"; do
		[ -f "$t" ] || die "no such test: $t" "tests are: $(cd "$TOP/tests/host" && ls [0-9]*.sh | sed 's/\.sh$//' | paste -sd' ')"
	done
	: >"$results"
	timed source make_needs source || finish
	# The report scripts on saved logs: seconds, and no kernel needed.
	timed check run_tests "$TOP"/tests/check/[0-9]*.sh
	[ "$check" -eq 0 ] || finish
	mapfile -t needs < <(sed -n 's/^# needs: //p' "${tests[@]}" | tr -s ' ' '\n' | grep . | sort -u)
	[ ${#needs[@]} -eq 0 ] || timed build make_needs "${needs[@]}" || finish
	timed tests run_tests "${tests[@]}"
	finish
}

main "$@"
