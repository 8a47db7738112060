#!/usr/bin/env bash
# "make debug" (scripts/host/debug.sh) in batch mode on the already built test
# kernel: the single-stepped freeze of scripts/gdb/walkthrough.gdb (the
# transcript in docs/gdb-walkthrough.md), gdb attached to a running
# ./linux, a user's command under gdb (CMD=), the lx-todo/lx-frozen feature
# checks, and the errors that need no boot.  About a minute.
# shellcheck disable=SC2016 # $lx_current() and the like are gdb's, not the shell's
# needs: build initramfs
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../../scripts/host/lib/session.sh"

tmp=$(scratch)
debug() { "$TOP/scripts/host/debug.sh" --flavour "$TEST_FLAVOUR" "$@"; }

if ! command -v gdb >/dev/null; then
	fail "gdb: gdb is installed (run scripts/host/deps.sh)"
	exit 0
fi

# after FILE REGEX: the lines of FILE after the first line matching REGEX.
after() { awk -v re="$2" 'on; $0 ~ re { on = 1 }' "$1"; }
# between FILE FROM TO: the lines after the first FROM match, up to TO.
between() { awk -v from="$2" -v to="$3" 'on && $0 ~ to { exit } on; $0 ~ from { on = 1 }' "$1"; }

# 1. The walkthrough: stop at freeze_processes, single-step to freeze_me's
# freeze item, through thaw.
out=$tmp/walkthrough
# 300 s: its conditional breakpoints on schedule() and todo_frozen_wake()
# stop the kernel at every call; one CI run ran out of 150 s there.
debug --breaks freeze_processes --batch "$TOP/scripts/gdb/walkthrough.gdb" --timeout 300 \
	>"$out" 2>&1 && rc=0 || rc=$?
name="gdb: make debug BATCH= runs the walkthrough to the guest's poweroff"
if [ "$rc" -eq 0 ] && ! grep -q 'Kernel panic' "$out"; then
	expect "$name" "$out" '^TODO-EXIT: 0$' '^\[Inferior 1 \(process [0-9]+\) exited normally\]$' \
		'Breakpoint 1, freeze_processes \(\)'
else
	fail "$name (exit $rc)" "$out"
fi

name="gdb: make debug boots with RCU stall reports and the hung-task detector off"
expect "$name" "$out" '^guest: debug: rcu_cpu_stall_suppress=1 hung_task_timeout_secs=0$'

name="gdb: the kernel's gdb scripts are auto-loaded (bt from state_store, \$lx_current())"
between "$out" 'Breakpoint 1, freeze_processes' '^[+]lx-frozen' >"$tmp/stop1"
expect "$name" "$tmp/stop1" ' in state_store \(' '^\$1 = "debug-job\.sh\\000'

name="gdb: lx-todo shows freeze_me's freeze item (todo_freeze_self) queued before it runs"
between "$out" '^[+]tbreak task_todo_queue' '^[+]delete' >"$tmp/queued"
expect "$name" "$tmp/queued" \
	'^ +[0-9]+ +0 freeze_me +-2147483648  todo_freeze_self +0x[0-9a-f]+ \[freeze_todo\]$' \
	'^\$[0-9]+ = 1$'

name="gdb: the breakpoint in todo_freeze_self is hit in freeze_me's context"
between "$out" 'Breakpoint [0-9]+([.][0-9]+)?, todo_freeze_self' '^[+]step' >"$tmp/self"
expect "$name" "$tmp/self" '^\+p \$lx_current\(\)\.comm$' '^\$[0-9]+ = "freeze_me\\000' \
	' in task_todo_call \(' '^\$[0-9]+ = 1$'

# The item left the list just before its callback was called.
name="gdb: lx-todo no longer lists freeze_me's item once it runs"
between "$tmp/self" '^[+]lx-todo' '^[+]' >"$tmp/self-todo"
if grep -q 'item(s) pending' "$tmp/self-todo" && ! grep -q freeze_me "$tmp/self-todo"; then
	pass "$name"
else
	fail "$name" "$tmp/self"
fi

name="gdb: lx-frozen shows freeze_me frozen in the todo wait"
between "$out" '[Bb]reakpoint [0-9]+, schedule' '^[+]delete' >"$tmp/frozen"
expect "$name" "$tmp/frozen" '^frozen +[0-9]+ +0 freeze_me +todo wait \(todo_refrigerator\)$' \
	'^freezer: todo; freezer_active=1 pm_freezing=1 '

name="gdb: the thaw wakes freeze_me with its one broadcast (todo_frozen_wake), after ending the generation"
between "$out" '[Bb]reakpoint [0-9]+, todo_frozen_wake' '^[+]break freezer_bench_left' >"$tmp/woken"
expect "$name" "$tmp/woken" ' in todo_thaw_begin \(' ' in thaw_processes \(' '^\$[0-9]+ = 2$' '^\$[0-9]+ = 0x8000$'

name="gdb: freeze_me leaves the todo wait in todo_refrigerator()"
between "$out" 'Breakpoint [0-9]+, freezer_bench_left' '^[+]continue' >"$tmp/left"
expect "$name" "$tmp/left" '^\$[0-9]+ = "freeze_me\\000' ' in todo_refrigerator \('

# The thaw ended generation 1 of both classes; it does not wait for the
# woken tasks, so some may still be counted in the wait.  How the freeze's
# last wait ended depends on how long gdb held the guest: any of the three.
name="gdb: after the thaw nothing is queued, nothing frozen, both generations ended"
after "$out" 'Breakpoint [0-9]+([.][0-9]+)?, pm_notifier_call_chain' >"$tmp/thawed"
expect "$name" "$tmp/thawed" '^0 item\(s\) pending on 0 task\(s\)$' '^0 frozen, 0 freezing, ' \
	'todo waits: user [0-9]+ in the wait, 0 in place, 0 items to run, generation 2, last wait (woken|slice|none); kthreads [0-9]+ in the wait, 0 in place, 0 items to run, generation 2, last wait (woken|slice|none)$'

# 2. Attach to a running ./linux, stop in freeze_me, detach: the guest
# must then finish its freeze and thaw (no "Kernel mode signal 5").
log=$tmp/attach-console.log
session_start --flavour "$TEST_FLAVOUR" --job debug --timeout 120 --show none \
	--log "$log" -- kunit.enable=0 debug_delay=15 >"$tmp/attach-boot" 2>&1
session_wait_line --timeout 60 '^TODO-INIT:' || true
kernel=$(session_pid || true)
name="gdb: make debug ATTACH= stops in freeze_me's freeze item and detaches cleanly"
if [ -z "$kernel" ]; then
	fail "$name (the kernel's pid is unknown)" "$tmp/attach-boot"
else
	# A host process UML cloned for a guest process: not the kernel.  They
	# come and go (every exec makes a new one): retry with another one.
	name2="gdb: ATTACH= a host process of a UML kernel names the kernel to attach to"
	child="" rc=0
	for _ in $(seq 20); do
		child=$(pgrep -P "$kernel" | head -n 1 || true)
		if [ -n "$child" ]; then
			debug --attach "$child" >"$tmp/child" 2>&1 && rc=0 || rc=$?
			grep -q "error: no process $child" "$tmp/child" || break
		fi
		child=""
		sleep 0.2
	done
	if [ -z "$child" ]; then
		skip "$name2" "no host child process of the kernel stayed long enough to try"
	elif [ "$rc" -ne 0 ]; then
		expect "$name2" "$tmp/child" "is a host process of the UML kernel $kernel" \
			"make debug ATTACH=$kernel"
	else
		fail "$name2 (exit 0)" "$tmp/child"
	fi
	cat >"$tmp/attach.gdb" <<-'EOF'
		set trace-commands on
		delete
		break todo_freeze_self if $_streq(((struct task_struct *)data)->comm, "freeze_me")
		continue
		p $lx_current().comm
		detach
	EOF
	debug --attach "$kernel" --batch "$tmp/attach.gdb" --timeout 60 >"$tmp/attach" 2>&1 && rc=0 || rc=$?
	session_wait && brc=0 || brc=$?
	{ cat "$tmp/attach"; tail -n 12 "$log"; } >"$tmp/attach-all"
	if [ "$rc" -eq 0 ] && [ "$brc" -eq 0 ] && ! grep -q 'Kernel panic' "$log"; then
		expect "$name" "$tmp/attach-all" 'Breakpoint [0-9]+([.][0-9]+)?, todo_freeze_self' \
			'^\$1 = "freeze_me\\000' '^guest: debug: freeze and thaw done$'
	else
		fail "$name (gdb exit $rc, boot exit $brc)" "$tmp/attach-all"
	fi
fi

# 3. make debug CMD=: the breakpoint stops in the freeze of a process of
# the user's command line, run in the guest in a host directory.  A cat
# blocked opening a FIFO runs its freeze item (todo_freeze_self); a sleep
# would be frozen in place, without it.  The last line gives the command's
# exit status (3), the exit status is gdb's (0).
cat >"$tmp/cmd.gdb" <<-'EOF'
	set trace-commands on
	delete
	break todo_freeze_self if $_streq(((struct task_struct *)data)->comm, "cat")
	continue
	p $lx_current().comm
	delete
	continue
EOF
name="gdb: make debug CMD= stops in the freeze of the command's own process, and ends with the command's status"
debug --cwd "$tmp" --batch "$tmp/cmd.gdb" --timeout 120 \
	-- 'mkfifo /tmp/fifo; cat /tmp/fifo & sleep 1; echo freeze >/sys/power/state; echo "freeze: $? in $PWD"; kill $!; exit 3' \
	>"$tmp/cmd" 2>&1 && rc=0 || rc=$?
if [ "$rc" -eq 0 ] && ! grep -q 'Kernel panic' "$tmp/cmd"; then
	expect "$name" "$tmp/cmd" 'Breakpoint [0-9]+([.][0-9]+)?, todo_freeze_self' '^\$1 = "cat"' \
		"^freeze: 0 in $tmp\$" '^\[Inferior 1 \(process [0-9]+\) exited normally\]$' \
		"^\\[[0-9:]+\\] the command's exit status: 3 \\(gdb's: 0\\)\$"
else
	fail "$name (exit $rc)" "$tmp/cmd"
fi

# 4. Feature detection: the kernel's own scripts of the test kernel, with
# constants.py saying what a kernel built without CONFIG_TASK_TODO or
# CONFIG_TODO_FREEZER says (no such kernel is built here), on its vmlinux
# read from the file (no boot).
name="gdb: lx-todo and lx-frozen say the kernel has no todo list / todo freezer"
obj=$(obj_dir "$TEST_FLAVOUR")
# lx OPTION COMMAND: COMMAND's output with CONFIG_OPTION off.
lx() {
	local dir=$tmp/no-$1
	rm -rf "$dir" && mkdir -p "$dir"
	cp -rL "$obj/scripts/gdb/linux" "$dir/"
	sed -i "s/^LX_CONFIG_$1 = .*/LX_CONFIG_$1 = 0/" "$dir/linux/constants.py"
	# gdb -batch exits 1 after an error, which is what is tested here.
	gdb -q -batch -iex "set auto-load python-scripts off" \
		-ex "python import sys; sys.path.insert(0, '$dir')" \
		-ex "python import linux.todo" -ex "$2" "$obj/vmlinux" 2>&1 || true
}
{
	lx TASK_TODO lx-todo
	lx TASK_TODO 'p $lx_todo_count(0)'
	lx TASK_TODO lx-frozen
	lx TODO_FREEZER lx-frozen
} >"$tmp/features"
expect "$name" "$tmp/features" \
	'^lx-todo: this kernel has no todo list \(CONFIG_TASK_TODO is not set\)$' \
	'\$lx_todo_count: this kernel has no todo list \(CONFIG_TASK_TODO is not set\)' \
	'^lx-frozen: this kernel has no todo list \(CONFIG_TASK_TODO is not set\)$' \
	'^lx-frozen: this kernel has no todo freezer \(CONFIG_TODO_FREEZER is not set\)$'
name="gdb: no Python traceback from lx-todo and lx-frozen without the options"
if grep -q Traceback "$tmp/features"; then fail "$name" "$tmp/features"; else pass "$name"; fi

# 5. Errors that need no boot.
name="gdb: ATTACH= a missing pid, a process that is no UML kernel, no build: clear errors"
{
	debug --attach 999999999 || true
	debug --attach $$ || true
	OBJ_DIR=$tmp/none "$TOP/scripts/host/debug.sh" || true
} >"$tmp/errors" 2>&1
expect "$name" "$tmp/errors" '^\[.*\] error: no process 999999999$' '^  running UML kernels: ' \
	"error: pid $$ is not a UML kernel built here: it runs .*bash" \
	"error: no kernel at .*/none/vmlinux\$" '^  build it first: make build FLAVOUR=test'
# Objects from another clone's compiler cache name that clone's sources:
# scripts/host/debug.sh maps them to this tree (set substitute-path).
name="gdb: gdb shows the kernel's source lines from this tree"
if grep -E ': No such file or directory\.$' "$out" >"$tmp/nosrc"; then fail "$name" "$tmp/nosrc"; else pass "$name"; fi
rm -rf "$tmp"
