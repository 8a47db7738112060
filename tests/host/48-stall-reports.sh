#!/usr/bin/env bash
# An RCU stall report after a stop in gdb shows the interrupted task's
# kernel stack under its registers, as other architectures' show_regs()
# do; UML 6.12 printed the registers only, all zero when the timer signal
# had been deferred (arch-um-patches/0011).  gdb attaches to a
# running ./linux (make debug ATTACH=) booted with a 3 s stall timeout,
# stops it where a grace period is in progress (rcu_gp_fqs_loop; a guest
# loop of fork()s keeps grace periods coming), holds it 5 s and detaches.
# In the same boot a task sleeps 20 s uninterruptibly (idle_refuse_ms), and
# the hung-task detector, at 1 s, must show its stack with the sleep.  The
# sleep outlasts the gdb stop: the guest clock runs on through a stop, so a
# sleep that ended inside it would wake before khungtaskd looked again.
# needs: build initramfs
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../../scripts/host/lib/session.sh"

log=$LOGS/stall-reports.log
session_start --flavour "$TEST_FLAVOUR" --job idle --timeout 180 --show none \
	--log "$log" -- kunit.enable=0 idle_seconds=45 idle_forks=1 idle_refuse_ms=20000 \
	rcupdate.rcu_cpu_stall_timeout=3 sysctl.kernel.hung_task_timeout_secs=1 \
	sysctl.kernel.hung_task_check_interval_secs=1 >"$log.runner" 2>&1
session_wait_line --timeout 90 '^TODO-READY' || true
kernel=$(session_pid || true)
tmp=$(scratch)
cat >"$tmp/stall.gdb" <<-'GDB'
	set trace-commands on
	shell sleep 5
	delete
	detach
GDB
name="rcu stall: a 5 s stop in gdb during a grace period ends in a stall report"
if [ -z "$kernel" ]; then
	fail "$name (the kernel's pid is unknown)" "$log.runner"
elif ! "$TOP/scripts/host/debug.sh" --flavour "$TEST_FLAVOUR" --attach "$kernel" \
	--breaks rcu_gp_fqs_loop --batch "$tmp/stall.gdb" --timeout 60 >"$tmp/gdb" 2>&1; then
	fail "$name (make debug ATTACH=$kernel failed)" "$tmp/gdb"
else
	session_wait_line --timeout 10 'detected stall' || true
	expect "$name" "$log" 'rcu: INFO: rcu_preempt (self-)?detected stall'
fi

# dump FROM HEADER: after the last line matching FROM, the lines from the
# first HEADER match on that are registers, "Stack:", stack words, "Call
# Trace:" or symbols.  The last report, as an earlier one can be cut by
# another report printed from an interrupt (the RCU stall's).
dump() {
	awk -v from="$1" -v header="$2" '$0 ~ from { on = 1; in_dump = 0; done = 0; out = ""; next }
	     done || !on { next }
	     $0 ~ header && !in_dump { in_dump = 1; out = $0 "\n"; next }
	     in_dump && !/^([A-Z0-9]+: |Stack:|Call Trace:| [0-9a-f]+ | \[<)/ { done = 1; next }
	     in_dump { out = out $0 "\n" }
	     END { printf "%s", out }' "$log"
}
out=$(scratch)
# The current task's part: show_regs()'s "Pid: N, comm: C" and registers,
# then its stack.
dump 'detected stall' '^Pid: [0-9]+, comm:' >"$out/regs"
expect "rcu stall: the report shows the interrupted task's registers and kernel stack" \
	"$out/regs" '^R13: ' '^Call Trace:' '^ \[<[0-9a-f]+>\] [a-z_]'
dump 'INFO: task .* blocked for more than' '^task:' >"$out/hung"
expect "hung task: the report shows the blocked task's stack in its sleep" \
	"$out/hung" '^task:.* state:D' '^Call Trace:' '^ \[<[0-9a-f]+>\] msleep'
if grep -q 'Received SIGSEGV in SIGSEGV handler' "$log"; then
	fail "stall reports: no stack dump refused on the signal stack" "$log"
else
	pass "stall reports: no stack dump refused on the signal stack"
fi

session_wait && rc=0 || rc=$?
if [ "$rc" -eq 0 ]; then pass "stall reports: the guest ran on and powered off"; else
	fail "stall reports: the guest ran on and powered off (runner exit $rc)" "$log.runner"
fi
