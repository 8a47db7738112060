#!/usr/bin/env bash
# "make debug FLAVOUR=smp" in batch mode: the x86_64 kernel with debug info
# (flavour smp-gdb) under QEMU with 4 vCPUs, halted for gdb at QEMU's
# stub; scripts/gdb/smp-freeze.gdb follows freeze_me's freeze item from
# its queueing to todo_freeze_self on some vCPU and to its todo wait at the
# thaw, with lx-todo, lx-frozen, lx-ps, $lx_current() and $lx_per_cpu();
# the guest then runs to its end.
# shellcheck disable=SC2016 # $lx_current() and the like are gdb's, not the shell's
# needs: initramfs
# builds: make build FLAVOUR=smp-gdb
# timeout: 900
. "$(dirname "$0")/lib.sh"

if ! command -v gdb >/dev/null; then
	fail "gdb smp: gdb is installed (run scripts/host/deps.sh)"
	exit 0
fi
if ! make -C "$TOP" --no-print-directory build FLAVOUR=smp-gdb >"$LOGS/gdb-smp-build.log" 2>&1; then
	fail "gdb smp: kernel 'smp-gdb' (x86_64, debug info) builds" "$LOGS/gdb-smp-build.log"
	exit 0
fi
pass "gdb smp: kernel 'smp-gdb' (x86_64, debug info) builds"

tmp=$(scratch)
out=$tmp/out
# between FILE FROM TO: the lines after the first FROM match, up to TO.
between() { awk -v from="$2" -v to="$3" 'on && $0 ~ to { exit } on; $0 ~ from { on = 1 }' "$1"; }
# value_of FILE COMMAND: what gdb printed for "p COMMAND" ("$N = VALUE").
value_of() { awk -v cmd="+p $2" 'on { sub(/^\$[0-9]+ = /, ""); print; exit } $0 == cmd { on = 1 }' "$1"; }

# Under TCG on a busy host the boot to the freeze takes a few minutes.
make -C "$TOP" --no-print-directory debug FLAVOUR=smp BATCH="$TOP/scripts/gdb/smp-freeze.gdb" \
	TIMEOUT="$TIMEOUT" >"$out" 2>&1 && rc=0 || rc=$?
name="gdb smp: make debug FLAVOUR=smp BATCH= stops in todo_freeze_task; gdb detaches, the freeze ends, the guest powers off"
if [ "$rc" -eq 0 ] && ! grep -q 'Kernel panic' "$out"; then
	expect "$name" "$out" 'make debug FLAVOUR=smp runs smp-gdb' \
		'^Thread [0-9]+( "[^"]*")? hit Breakpoint 1, todo_freeze_task \(p=' \
		'^guest: debug: freeze and thaw done$' '^TODO-EXIT: 0$'
else
	fail "$name (exit $rc)" "$out"
fi
# From here on, the gdb session that ran to the end.
last_gdb_session "$out" >"$out.last"
out=$out.last

name="gdb smp: info threads shows one thread per vCPU, 4"
between "$out" '^[+]info threads' '^[+]bt' >"$tmp/threads"
if [ "$(grep -cE '^[* ] +[0-9]+ +Thread 1\.[0-9]+ \(CPU#[0-9]+ ' "$tmp/threads")" -eq 4 ]; then
	pass "$name"
else
	fail "$name" "$tmp/threads"
fi

name="gdb smp: lx-todo shows freeze_me's freeze item queued, with its CPU"
between "$out" '^[+]lx-todo' '^[+]lx-frozen' >"$tmp/todo"
expect "$name" "$tmp/todo" '^ +PID CPU COMM ' \
	'^ +[0-9]+ +[0-3] freeze_me +-2147483648  todo_freeze_self +0x[0-9a-f]+ \[freeze_todo\]$'

name="gdb smp: lx-frozen shows freeze_me freezing, its item queued and kicked"
between "$out" '^[+]lx-frozen freezing' '^[+]hbreak' >"$tmp/freezing"
expect "$name" "$tmp/freezing" '^freezer: todo; freezer_active=1 pm_freezing=1 ' \
	'^freezing +[0-9]+ +[0-3] freeze_me +freeze item queued, TIF_NOTIFY_RESUME'

# The vCPU freeze_me runs its item on: the current thread's (gdb's thread
# N is QEMU's CPU#N-1).
between "$out" 'hit Breakpoint [0-9.]+, todo_freeze_self' '^[+]delete' >"$tmp/self"
cpu=$(sed -n 's/^\* *[0-9]* *Thread 1\.[0-9]* (CPU#\([0-9]*\) .*/\1/p' "$tmp/self")
name="gdb smp: stopped in todo_freeze_self in freeze_me's context, on one of the 4 CPUs"
expect "$name" "$tmp/self" '^\* +[0-9]+ +Thread 1\.[0-9]+ \(CPU#[0-3] \[running\]\) todo_freeze_self \(' \
	'^\+p \$lx_current\(\)\.comm$' '^\$[0-9]+ = "freeze_me\\000'
name="gdb smp: \$lx_current(), \$lx_per_cpu(runqueues, N) and lx-frozen agree on freeze_me's CPU"
# task_cpu() of $lx_current(), the task its runqueue runs, the runqueue of
# the selected thread, lx-frozen's CPU column; and the runqueue of each CPU
# N says N.
rq=$(value_of "$tmp/self" '$lx_per_cpu(runqueues, $lx_current().thread_info.cpu).curr->comm')
rqs=$(for n in 0 1 2 3; do value_of "$tmp/self" "\$lx_per_cpu(runqueues, $n).cpu"; done | paste -sd' ')
if [ -z "$cpu" ]; then
	fail "$name (no current thread)" "$tmp/self"
elif [ "$(value_of "$tmp/self" '$lx_current().thread_info.cpu')" != "$cpu" ] || [[ $rq != '"freeze_me\000'* ]] ||
	[ "$(value_of "$tmp/self" '$lx_per_cpu(runqueues).cpu')" != "$cpu" ] ||
	[ "$rqs" != "0 1 2 3" ] || ! grep -Eq "^freezing +[0-9]+ +$cpu freeze_me " "$tmp/self"; then
	echo "# CPU $cpu; the runqueue's task $rq; runqueues' cpu: $rqs"
	fail "$name" "$tmp/self"
else
	pass "$name"
fi

name="gdb smp: lx-ps lists the tasks, freeze_me and init among them"
between "$out" '^[+]lx-ps' '^[+]delete' >"$tmp/ps"
expect "$name" "$tmp/ps" '^0x[0-9a-f]+ +1 +init$' '^0x[0-9a-f]+ +[0-9]+ +freeze_me$'
name="gdb smp: at the thaw lx-frozen finds freeze_me frozen in the todo wait, on its stack"
between "$out" '^[+]lx-frozen frozen$' '^[+]delete' >"$tmp/frozen"
expect "$name" "$tmp/frozen" '^frozen +[0-9]+ +[0-3] freeze_me +todo wait \(todo_refrigerator\)$'
if grep -q Traceback "$out"; then fail "gdb smp: no Python traceback from the gdb scripts" "$out"; else pass "gdb smp: no Python traceback from the gdb scripts"; fi
# Objects from another clone's compiler cache name that clone's sources:
# scripts/host/debug.sh maps them to this tree (set substitute-path).
name="gdb smp: gdb shows the kernel's source lines from this tree"
if grep -E ': No such file or directory\.$' "$out" >"$tmp/nosrc"; then fail "$name" "$tmp/nosrc"; else pass "$name"; fi
rm -rf "$tmp"
