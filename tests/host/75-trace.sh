#!/usr/bin/env bash
# "make trace" (scripts/host/trace.sh) on the already built test kernel, both
# ways of tracing: strace starting ./linux, and strace -p after boot.
# Checks that the freeze windows of both freezers were found in the strace
# log with host syscalls inside, and that the summary is well-formed; not
# any particular number; and that trace-cmd report reads the trace.dat
# the guest recorded, with task_frozen events of both freezers.  Then the
# errors that need no boot: no strace, no kernel, ptrace not permitted.
# needs: build initramfs
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/checks.sh"

tmp=$(scratch)

# check_run MODE OUT RC LOG: the checks on one run's output directory.
check_run() {
	local mode=$1 out=$2 rc=$3 log=$4 name
	name="trace ($mode): make trace runs to the end"
	if [ "$rc" -eq 0 ]; then pass "$name"; else fail "$name (exit $rc)" "$log"; fi
	check_trace_out "trace ($mode)" "$mode" "$out" "$log"
	check_tracedat "trace ($mode)" "$out/trace.dat" "$log"
}

for mode in start attach; do
	out=$tmp/$mode
	"$TOP/scripts/host/trace.sh" --flavour "$TEST_FLAVOUR" --strace "$mode" --out "$out" --timeout 240 \
		>"$tmp/$mode.log" 2>&1 && rc=0 || rc=$?
	cp "$tmp/$mode.log" "$LOGS/trace-$mode.log"
	[ ! -f "$out/summary.txt" ] || cp "$out/summary.txt" "$LOGS/trace-$mode-summary.txt"
	check_run "$mode" "$out" "$rc" "$tmp/$mode.log"
done

# Errors, before anything boots.
"$TOP/scripts/host/trace.sh" --flavour "$TEST_FLAVOUR" --strace-prog /nonexistent/strace --out "$tmp/e1" \
	>"$tmp/e1.log" 2>&1 && rc=0 || rc=$?
name="trace: no strace is named, with the package to install"
if [ "$rc" -ne 0 ] && ! grep -q booting "$tmp/e1.log"; then
	expect "$name" "$tmp/e1.log" "error: strace is not installed" "make deps .*strace"
else
	fail "$name (exit $rc)" "$tmp/e1.log"
fi

mkdir -p "$tmp/empty"
OBJ_DIR=$tmp/empty "$TOP/scripts/host/trace.sh" --flavour run --out "$tmp/e2" >"$tmp/e2.log" 2>&1 && rc=0 || rc=$?
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
"$TOP/scripts/host/trace.sh" --flavour "$TEST_FLAVOUR" --strace-prog "$tmp/strace" --out "$tmp/e3" \
	>"$tmp/e3.log" 2>&1 && rc=0 || rc=$?
name="trace: ptrace not permitted is reported with the container fix"
if [ "$rc" -ne 0 ] && ! grep -q booting "$tmp/e3.log"; then
	expect "$name" "$tmp/e3.log" "error: ptrace is not permitted here" "Operation not permitted" \
		"--cap-add=SYS_PTRACE" "ptrace_scope"
else
	fail "$name (exit $rc)" "$tmp/e3.log"
fi
rm -rf "$tmp"
