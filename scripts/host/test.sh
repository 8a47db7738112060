#!/usr/bin/env bash
# "make test": check the report scripts on saved logs (tests/check/, no
# kernel needed), have make build what the chosen host tests of tests/host/
# need (each names those make targets, for its flavour, TEST_FLAVOUR, in a
# line "# needs: build initramfs"), run them, and end with the line
# "N passed, N failed, N skipped".
# Usage: scripts/host/test.sh [--flavour F] [TEST...]   (tests/host/TEST.sh; all)
#        scripts/host/test.sh [--flavour F] [--guest 'PROG[:GLOB],...'] [--freezer todo|classic]
#                        (the guest suite alone, only those of its tests:
#                        docs/testing.md)
#        scripts/host/test.sh [--cycles N] [--hammer N] [--timeout S] [TEST...]
#        scripts/host/test.sh --check     ("make check": tests/check/ only)
# The tests' knobs, --guest, --freezer, --cycles, --hammer and --timeout,
# reach each test as the same word in its environment: GUEST, FREEZER,
# CYCLES, HAMMER, TIMEOUT; only from here, never from the caller's
# environment.  TIMEOUT is the time limit of a test's guest boot, for
# every test that takes one (those with a "# timeout: S" line, whose S is
# the limit without TIMEOUT, as kselftest's settings file has timeout=;
# 50-stress and smp-full, whose limit grows with CYCLES and HAMMER).
. "$(dirname "$0")/lib/opts.sh"
. "$(dirname "$0")/lib/ktap.sh"
. "$(dirname "$0")/lib/qemu.sh"
help_if_asked "$@"

# Every test's results, each test a subtest of one KTAP document that the
# kernel's parser counts once (scripts/host/ktap_totals.py).
results=$LOGS/test-results.ktap body=$LOGS/test-results.body
ntests=0

# record NAME OUT: the results in file OUT as subtest NAME of the
# document, not ok if one of them is.
record() {
	ntests=$((ntests + 1))
	ktap_subtest "$ntests" "$1" "$2" >>"$body"
}

# record_failure NAME WHAT: subtest NAME of one failed result, WHAT.
record_failure() {
	local out=$LOGS/test-current.out
	: >"$out"
	ktap_append "not ok" "$2" "$out"
	cat "$out"
	record "$1" "$out"
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

# The table of stage times: the steps, each test file, and under each the
# kernel builds and guest boots it did (rows that build.sh and session.sh
# add to STAGE_TIMES, see stage_time in lib/base.sh).
export STAGE_TIMES=$LOGS/test-stage-times.tsv
table=()
# tabled NAME CMD...: run CMD; a row for it, and under it the rows it added.
tabled() {
	local name=$1 t0=$SECONDS rc=0 from row secs
	shift
	from=$(wc -l <"$STAGE_TIMES")
	"$@" || rc=$?
	table+=("$(printf '  %-58s %5d' "$name" "$((SECONDS - t0))")")
	while IFS=$'\t' read -r row secs; do
		table+=("$(printf '    %-56s %5d' "$row" "$secs")")
	done < <(tail -n "+$((from + 1))" "$STAGE_TIMES")
	return "$rc"
}

# The wall time of each step, for telling a slow machine from a slow change,
# and the table that shows which part was slow.
show_timings() {
	local t line=""
	for t in "${timings[@]}"; do line+="${line:+, }$t"; done
	info "stage times (s), kernel builds and guest boots under the step or test that did them:"
	printf '%s\n' "${table[@]}"
	[ -z "$background_pid" ] || background_rows
	printf '  %-58s %5d\n' total "$((SECONDS - start))"
	info "took: $line; total $((SECONDS - start)) s"
}

# What a red run on a new kind of machine needs first: the CPU, the cores,
# and (kvm_verdict, once the packages are in) whether x86_64 guests get KVM,
# decided once here for every test.
host_facts() {
	local model
	model=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
	info "host: ${model:-unknown CPU} ($(sed -n 's/^vendor_id[[:space:]]*: //p' /proc/cpuinfo | head -n 1)), $(nproc) cores, $(free -g | awk '/^Mem:/ { print $2 }') GiB, Linux $(uname -r)"
}

kvm_verdict() {
	if command -v "$QEMU" >/dev/null; then
		qemu_decide_accel
	else
		info "KVM: not probed: no $QEMU (package qemu-system-x86)"
	fi
}

# Kernels that only the last tests need are built in the background,
# niced, while the kernel the other tests need builds and while those
# tests run (UML runs on one core): a test says so with a line "# builds: COMMAND" (a make target or
# a script, run from the top), and the tests that have one run after the
# others, in their order.  A test waits for its kernel through the object
# dir's lock (hold_lock in lib/kernel-build.sh); a background build that failed is
# built again by its test, which reports the error.
background_pid=""
BACKGROUND_LOG=$LOGS/test-background-builds.log
BACKGROUND_TIMES=$LOGS/test-stage-times-background.tsv

# builds_of FILE...: the "# builds:" commands, each once, in order.
builds_of() { sed -n 's/^# builds: //p' "$@" | awk '!seen[$0]++'; }

start_background_builds() {
	local cmds=()
	mapfile -t cmds < <(builds_of "$@")
	[ ${#cmds[@]} -gt 0 ] || return 0
	info "building in the background, niced, beside the other builds and tests: $(printf '%s; ' "${cmds[@]}")log: ${BACKGROUND_LOG#"$TOP"/}"
	: >"$BACKGROUND_TIMES"
	# setsid: its own process group, so that an interrupted make test
	# stops the builds too (trap below).
	STAGE_TIMES=$BACKGROUND_TIMES setsid nice -n 10 bash -c '
		cd "$1" || exit 1
		shift
		for cmd; do
			echo "[$(date +%H:%M:%S)] background: \$ $cmd"
			bash -c "$cmd" </dev/null ||
				echo "[$(date +%H:%M:%S)] background: failed: $cmd (the test that needs it builds again)"
		done
		echo "[$(date +%H:%M:%S)] background: done in $SECONDS s"' background "$TOP" "${cmds[@]}" >"$BACKGROUND_LOG" 2>&1 &
	background_pid=$!
	trap 'kill -- -"$background_pid" 2>/dev/null || true' EXIT
}

# The background builds' rows of the stage table, after the tests they
# ran beside.
background_rows() {
	local row secs
	wait "$background_pid" 2>/dev/null || true
	secs=$(sed -n 's/.* background: done in \([0-9]*\) s$/\1/p' "$BACKGROUND_LOG")
	printf '  %-58s %5s\n' "background builds (niced, beside the steps above)" "${secs:-?}"
	while IFS=$'\t' read -r row secs; do
		printf '    %-56s %5d\n' "$row" "$secs"
	done <"$BACKGROUND_TIMES"
}

# run_tests FILE...: run each test script, show and record its results.
# A test that dies, or reports nothing, gets a failing result more.
run_tests() {
	local t
	for t; do
		tabled "${t#"$TOP"/tests/}" run_test "$t"
	done
}

run_test() {
	local t=$1 name out=$LOGS/test-current.out
	stage "test ${t#"$TOP"/}"
	name=${t#"$TOP"/tests/}
	bash "$t" >"$out" 2>&1 || ktap_append "not ok" "${name%.sh} exited with an error" "$out"
	[ "$(ktap_count <"$out")" -gt 0 ] || ktap_append "not ok" "${name%.sh} reported no result" "$out"
	cat "$out"
	record "${name%.sh}" "$out"
}

# make_needs TARGET...: make the targets; a failure is a result.
make_needs() {
	run make -C "$TOP" -s --no-print-directory FLAVOUR="$TEST_FLAVOUR" "$@" && return 0
	record_failure build "make $* (flavour $TEST_FLAVOUR)"
	return 1
}

# The end of every run: timings, and the totals and exit status from the
# parsed document.
finish() {
	local rc=0
	{ printf 'KTAP version 1\n1..%d\n' "$ntests"; cat "$body"; } >"$results"
	rm -f "$body"
	info "all results (KTAP): ${results#"$TOP"/} (the parser's report: ${results#"$TOP"/}.report); console logs: ${LOGS#"$TOP"/}/"
	show_timings
	# No kernel tree, no parser: the source step failed, as recorded.
	[ -f "$SRC/tools/testing/kunit/kunit_parser.py" ] || { echo "0 passed, 1 failed, 0 skipped"; exit 1; }
	python3 "$TOP/scripts/host/ktap_totals.py" "$results" || rc=1
	exit "$rc"
}

# one_run_per_tree: two runs in one tree would write one results document
# and one stage table, and each would count the other's results; refuse
# the second, naming the first.  The lock goes with this process and the
# background builds it starts.
one_run_per_tree() {
	local lock=$LOGS/test.lock fd
	exec {fd}>>"$lock"
	flock -n "$fd" ||
		die "another test run (make test, check, stress or smp-test) is using this tree ($(cat "$lock.owner" 2>/dev/null || echo unknown)); both would write ${results#"$TOP"/}" \
			"wait for it to end, or run this one in another clone (git clone $TOP)"
	printf 'pid %s, since %s\n' "$$" "$(ts)" >"$lock.owner"
}

main() {
	# shellcheck disable=SC2034 # cycles, hammer, timeout: read as ${!knob}
	local t tests=() late=() needs=() check=0 flavour guest="" freezer="" cycles="" hammer="" timeout="" knob
	start=$SECONDS
	flavour=$(default_flavour test)
	opts_parse 'flavour:flavour check:flag guest freezer:todo|classic cycles:number hammer:number timeout:number
		@tests' "$@"
	export TEST_FLAVOUR=$flavour
	# The tests' knobs: the same word, upper case, in their environment
	# (make CYCLES= -> --cycles -> $CYCLES); unset when not given, so that
	# one the caller's shell happens to have does not reach them.
	for knob in guest freezer cycles hammer timeout; do
		if [ -n "${!knob}" ]; then export "${knob^^}=${!knob}"; else unset "${knob^^}"; fi
	done
	tests=("${tests[@]/#/$TOP/tests/host/}")
	tests=("${tests[@]/%/.sh}")
	if [ ${#tests[@]} -eq 0 ] && [ -n "$guest$freezer" ]; then
		tests=("$TOP/tests/host/40-guest-suite.sh")
	fi
	[ ${#tests[@]} -gt 0 ] || tests=("$TOP"/tests/host/[0-9]*.sh)
	for t in "${tests[@]}"; do
		[ -f "$t" ] || die "no such test: $t" "tests are: $(cd "$TOP/tests/host" && ls [0-9]*.sh | sed 's/\.sh$//' | paste -sd' ')"
	done
	mkdir -p "$LOGS"
	one_run_per_tree
	: >"$body"
	: >"$STAGE_TIMES"
	[ "$check" -eq 1 ] || host_facts
	timed source tabled "source: build/src with the series" make_needs source || finish
	[ "$check" -eq 1 ] || kvm_verdict
	# The report scripts on saved logs: seconds, and no kernel needed.
	timed check run_tests "$TOP"/tests/check/[0-9]*.sh
	[ "$check" -eq 0 ] || finish
	mapfile -t needs < <(sed -n 's/^# needs: //p' "${tests[@]}" | tr -s ' ' '\n' | grep . | sort -u)
	mapfile -t late < <(grep -l '^# builds: ' "${tests[@]}" || true)
	mapfile -t tests < <(grep -L '^# builds: ' "${tests[@]}" || true)
	# Started before the needs: a kernel build leaves a core idle in its
	# serial steps (linking, kallsyms), which the niced builds take.
	if [ ${#late[@]} -gt 0 ]; then
		info "these tests run last, once the kernels they build are built: $(basename -a "${late[@]}" | sed 's/\.sh$//' | paste -sd' ')"
		start_background_builds "${late[@]}"
	fi
	[ ${#needs[@]} -eq 0 ] || timed build tabled "make ${needs[*]} (flavour $TEST_FLAVOUR)" make_needs "${needs[@]}" || finish
	timed tests run_tests "${tests[@]}" "${late[@]}"
	finish
}

main "$@"
