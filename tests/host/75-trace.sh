#!/usr/bin/env bash
# "make trace" (scripts/trace.sh) on the already built test kernel, both
# ways of tracing: strace starting ./linux, and strace -p after boot.
# Checks that the freeze windows of both freezers were found in the strace
# log with host syscalls inside, and that the summary is well-formed; not
# any particular number.  Then the errors that need no boot: no strace, no
# kernel, ptrace not permitted.
. "$(dirname "$0")/lib.sh"

tmp=$(scratch)
NUM='[0-9]+\.[0-9]+'

# check_run MODE OUT RC LOG: the checks on one run's output directory.
check_run() {
	local mode=$1 out=$2 rc=$3 log=$4 w name rows bad
	name="trace ($mode): make trace runs to the end"
	if [ "$rc" -eq 0 ]; then pass "$name"; else fail "$name (exit $rc)" "$log"; fi

	name="trace ($mode): the markers are UML's own console write()s in the strace log"
	if [ -s "$out/strace.log" ]; then
		expect "$name" "$out/strace.log" \
			'^[0-9]+\.[0-9]{6} write\([0-9]+, "TODO-FREEZE-BEGIN todo"' \
			'^[0-9]+\.[0-9]{6} write\([0-9]+, "TODO-FREEZE-END todo 0"' \
			'^[0-9]+\.[0-9]{6} write\([0-9]+, "TODO-FREEZE-BEGIN classic"' \
			'^[0-9]+\.[0-9]{6} write\([0-9]+, "TODO-FREEZE-END classic 0"'
	else
		fail "$name (no strace.log)" "$log"
	fi

	name="trace ($mode): summary.txt has a window row per freezer, idle and outside, and the table"
	if [ -s "$out/summary.txt" ]; then
		expect "$name" "$out/summary.txt" \
			"^Host syscalls of the main UML process during a freeze \(.*strace\.log, strace $mode mode\)\$" \
			"^todo +$NUM +$NUM +[1-9][0-9]* +$NUM +0\$" \
			"^classic +$NUM +$NUM +[1-9][0-9]* +$NUM +0\$" \
			"^idle +$NUM +$NUM +[0-9]+ +$NUM +0\$" \
			"^outside +- +$NUM +[1-9][0-9]* +$NUM +-\$" \
			'^ +\| +todo +\| +classic +\| +idle +\| +outside *$' \
			'^syscall +(\| +n +/s ){3}\| +n +/s$' \
			"^all syscalls +\| +[1-9][0-9]* +$NUM \| +[1-9][0-9]* +$NUM \| +[0-9]+ +$NUM \| +[1-9][0-9]* +$NUM\$" \
			"^todo +freeze +$NUM +[0-9]+ +$NUM " "^todo +hold +$NUM " \
			"^classic +freeze +$NUM +[0-9]+ +$NUM " "^classic +hold +$NUM "
		name="trace ($mode): the summary reports no error"
		if grep -q '^error:' "$out/summary.txt"; then fail "$name" "$out/summary.txt"; else pass "$name"; fi
	else
		fail "$name (no summary.txt)" "$log"
	fi

	name="trace ($mode): windows.csv has both freeze windows, non-empty, status 0"
	if header_is "$out/windows.csv" "window,start_s,seconds,events,status"; then
		bad=""
		for w in todo classic; do
			grep -qE "^$w,$NUM,$NUM,[1-9][0-9]*,0\$" "$out/windows.csv" || bad+=" $w"
			awk -F, -v w="$w" '$1 == w && $3 > 0 { ok = 1 } END { exit !ok }' "$out/windows.csv" ||
				bad+=" $w(length)"
		done
		grep -qE "^outside,,$NUM,[1-9][0-9]*,\$" "$out/windows.csv" || bad+=" outside"
		if [ -z "$bad" ]; then pass "$name"; else fail "$name (bad:$bad)" "$out/windows.csv"; fi
	else
		fail "$name" "$log"
	fi

	name="trace ($mode): summary.csv has its header and well-formed rows, syscalls inside both freezes"
	c=$out/summary.csv
	if header_is "$c" "name,kind,todo_n,todo_per_s,classic_n,classic_per_s,idle_n,idle_per_s,outside_n,outside_per_s"; then
		rows=$(tail -n +2 "$c" | grep -cE "^[A-Za-z0-9_+]+,(syscall|signal)(,[0-9]+,$NUM){4}\$" || true)
		bad=$(tail -n +2 "$c" | grep -cvE "^[A-Za-z0-9_+]+,(syscall|signal)(,[0-9]+,$NUM){4}\$" || true)
		# The sums of the syscall rows inside each freeze window.
		read -r todo classic < <(awk -F, '$2 == "syscall" { t += $3; c += $5 } END { print t + 0, c + 0 }' "$c")
		if [ "$rows" -gt 0 ] && [ "$bad" -eq 0 ] && [ "$todo" -gt 0 ] && [ "$classic" -gt 0 ]; then
			pass "$name"
		else
			fail "$name ($rows good rows, $bad malformed; syscalls inside: todo $todo, classic $classic)" "$c"
		fi
	else
		fail "$name" "$log"
	fi
}

for mode in start attach; do
	out=$tmp/$mode
	args=(--flavour "$TEST_FLAVOUR" --out "$out" --timeout 240)
	[ "$mode" = start ] || args+=(--attach)
	"$TOP/scripts/trace.sh" "${args[@]}" >"$tmp/$mode.log" 2>&1 && rc=0 || rc=$?
	cp "$tmp/$mode.log" "$LOGS/trace-$mode.log"
	[ ! -f "$out/summary.txt" ] || cp "$out/summary.txt" "$LOGS/trace-$mode-summary.txt"
	check_run "$mode" "$out" "$rc" "$tmp/$mode.log"
done

# Errors, before anything boots.
STRACE=/nonexistent/strace "$TOP/scripts/trace.sh" --flavour "$TEST_FLAVOUR" --out "$tmp/e1" \
	>"$tmp/e1.log" 2>&1 && rc=0 || rc=$?
name="trace: no strace is named, with the package to install"
if [ "$rc" -ne 0 ] && ! grep -q booting "$tmp/e1.log"; then
	expect "$name" "$tmp/e1.log" "error: strace is not installed" "make deps .*strace"
else
	fail "$name (exit $rc)" "$tmp/e1.log"
fi

mkdir -p "$tmp/empty"
OBJ_DIR=$tmp/empty "$TOP/scripts/trace.sh" --flavour run --out "$tmp/e2" >"$tmp/e2.log" 2>&1 && rc=0 || rc=$?
name="trace: a missing kernel is named, with the make command that builds it"
if [ "$rc" -ne 0 ] && ! grep -q booting "$tmp/e2.log"; then
	expect "$name" "$tmp/e2.log" "error: no run kernel at " "make build FLAVOUR=run"
else
	fail "$name (exit $rc)" "$tmp/e2.log"
fi

# A tracer that is refused, as in a container without CAP_SYS_PTRACE.
cat >"$tmp/strace" <<'EOF'
#!/bin/sh
echo "strace: test_ptrace_get_syscall_info: PTRACE_TRACEME: Operation not permitted" >&2
exit 1
EOF
chmod +x "$tmp/strace"
STRACE=$tmp/strace "$TOP/scripts/trace.sh" --flavour "$TEST_FLAVOUR" --out "$tmp/e3" \
	>"$tmp/e3.log" 2>&1 && rc=0 || rc=$?
name="trace: ptrace not permitted is reported with the container fix"
if [ "$rc" -ne 0 ] && ! grep -q booting "$tmp/e3.log"; then
	expect "$name" "$tmp/e3.log" "error: ptrace is not permitted here" "Operation not permitted" \
		"--cap-add=SYS_PTRACE" "ptrace_scope"
else
	fail "$name (exit $rc)" "$tmp/e3.log"
fi
rm -rf "$tmp"
