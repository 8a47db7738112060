#!/usr/bin/env bash
# A short run of "make bench" (scripts/bench.sh): 10 tasks of every kind, 2
# repetitions per freezer.  Checks that it produces a well-formed table,
# CSV and PNG; not that any number is fast.  It runs on the test kernel,
# which has the bench's CONFIG_FREEZER_BENCH too (configs/debug.config), so
# "make test" needs no third build; ./linux, ./vmlinux and the last flavour
# are put back as they were, for the rest of "make test".
. "$(dirname "$0")/lib.sh"

KINDS=(spin pause pipe nanosleep threads uring cgroup2)
REPS=2
tmp=$(scratch)
out=$tmp/bench
saved_linux=$(readlink "$TOP/linux" 2>/dev/null || true)
saved_vmlinux=$(readlink "$TOP/vmlinux" 2>/dev/null || true)
saved_flavour=$(cat "$BUILD/LAST_FLAVOUR" 2>/dev/null || true)

restore() {
	[ -z "$saved_linux" ] || ln -sfn "$saved_linux" "$TOP/linux"
	[ -z "$saved_vmlinux" ] || ln -sfn "$saved_vmlinux" "$TOP/vmlinux"
	[ -z "$saved_flavour" ] || echo "$saved_flavour" >"$BUILD/LAST_FLAVOUR"
}

"$TOP/scripts/bench.sh" --flavour "$TEST_FLAVOUR" --sizes 10 --reps "$REPS" --out "$out" --timeout 900 \
	>"$tmp/run" 2>&1 && rc=0 || rc=$?
restore
cp "$tmp/run" "$LOGS/bench-smoke.log"
[ ! -f "$out/console.log" ] || cp "$out/console.log" "$LOGS/bench-smoke-console.log"

name="bench smoke: make bench runs to the end (sizes 10, $REPS reps)"
if [ "$rc" -eq 0 ]; then pass "$name"; else fail "$name (exit $rc)" "$tmp/run"; fi

# table.txt: the header, a section per kind with a todo, a classic and a
# floor row for N = 10, the memory and the targets.
t=$out/table.txt
name="bench smoke: table.txt has a section per kind with todo, classic and floor rows"
if [ -s "$t" ]; then
	pats=("^Freezer bench: kernel 6\.12\.[0-9]+-todo, $REPS repetitions"
		"^ +N freezer +reps [|] freeze med +min +max +us/task [|] +thaw med")
	for k in "${KINDS[@]}"; do
		pats+=("^== $k: ")
	done
	# Ratios on the todo row: four numbers.
	pats+=("^ +10 todo +$REPS [|]( +[0-9]+\.[0-9]+){4} [|]( +[0-9]+\.[0-9]+){4} [|]( +[0-9]+(\.[0-9]+)?){2} [|]( +[0-9]+(\.[0-9]+)?){2}\$"
		"^ +10 classic +$REPS [|]( +[0-9]+\.[0-9]+){4} [|]( +[0-9]+\.[0-9]+){4} [|]"
		"^ +10 floor +$REPS [|]( +[0-9]+\.[0-9]+){4} [|]"
		"^struct task_struct \((pahole|gdb ptype/o)\): .*freeze_todo [0-9]+ bytes.*; [0-9]+ bytes added per task"
		"^allocations per task per freeze\+thaw, pause n=10: todo "
		"^== targets" "todo/classic freeze <= 1\.0" "within 2x the floor")
	expect "$name" "$t" "${pats[@]}"
	rows=$(grep -cE "^ +10 (todo|classic|floor) +$REPS [|]" "$t" || true)
	want=$((3 * ${#KINDS[@]}))
	name="bench smoke: table.txt has $want rows for N = 10 (kinds x todo, classic, floor)"
	if [ "$rows" -eq "$want" ]; then pass "$name"; else fail "$name (found $rows)" "$t"; fi
	name="bench smoke: the guest reported no errors"
	if grep -q "^== errors in the guest" "$t"; then fail "$name" "$t"; else pass "$name"; fi
else
	fail "$name (no $t)" "$tmp/run"
fi

# The CSVs: exact headers, and one row per freeze and floor run.
name="bench smoke: results.csv has its header and a row per freeze and floor run"
c=$out/results.csv
if header_is "$c" "kind,n,freezer,rep,freeze_ns,thaw_ns,frozen,left"; then
	# kinds x 2 freezers x reps, the same with no tasks (base), the floor
	want=$((${#KINDS[@]} * 2 * REPS + 2 * REPS + REPS))
	rows=$(tail -n +2 "$c" | grep -cE '^[a-z0-9]+,[0-9]+,(todo|classic|floor),[0-9]+,[0-9]+,[0-9]*,[0-9]*,[0-9]*$' || true)
	bad=$(tail -n +2 "$c" | grep -cvE '^[a-z0-9]+,[0-9]+,(todo|classic|floor),[0-9]+,[0-9]+,[0-9]*,[0-9]*,[0-9]*$' || true)
	if [ "$rows" -eq "$want" ] && [ "$bad" -eq 0 ]; then
		pass "$name"
	else
		fail "$name ($rows good rows, want $want; $bad malformed)" "$c"
	fi
else
	fail "$name" "$c"
fi
name="bench smoke: summary.csv has its header and a todo and a classic row per kind"
c=$out/summary.csv
if header_is "$c" 'kind,n,freezer,reps,freeze_median_ns,freeze_min_ns,freeze_max_ns,freeze_us_per_task,thaw_median_ns,.*,todo_classic_freeze,todo_classic_thaw,todo_floor_freeze,todo_floor_thaw,extra_tasks'; then
	missing=""
	for k in "${KINDS[@]}"; do
		grep -qE "^$k,10,todo,$REPS,[0-9]+,.*,[0-9.]+,[0-9.]+,[0-9.]+,[0-9.]+,[0-9.]+\$" "$c" || missing+=" $k/todo"
		grep -qE "^$k,10,classic,$REPS,[0-9]+," "$c" || missing+=" $k/classic"
	done
	grep -qE "^floor,10,floor,$REPS,[0-9]+," "$c" || missing+=" floor"
	if [ -z "$missing" ]; then pass "$name"; else fail "$name (missing:$missing)" "$c"; fi
else
	fail "$name" "$c"
fi
name="bench smoke: alloc.csv has its header and a row per kind and freezer"
c=$out/alloc.csv
if header_is "$c" "kind,n,freezer,events,base_events,per_task,status"; then
	rows=$(grep -cE '^[a-z0-9]+,10,(todo|classic),' "$c" || true)
	if [ "$rows" -eq $((2 * ${#KINDS[@]})) ]; then pass "$name"; else fail "$name ($rows rows)" "$c"; fi
else
	fail "$name" "$c"
fi

# How the tasks were frozen: every kind and freezer has a row, the classic
# freezer never runs a todo item and the todo freezer never the refrigerator.
name="bench smoke: how.csv says how each kind's tasks were frozen, per freezer"
c=$out/how.csv
if header_is "$c" "kind,n,freezer,reps,item,checkpoint,in_place,refrigerator,item_share"; then
	missing=""
	for k in "${KINDS[@]}"; do
		grep -qE "^$k,10,todo,$REPS,[0-9.]+,[0-9.]+,[0-9.]+,0,[0-9.]+\$" "$c" || missing+=" $k/todo"
		grep -qE "^$k,10,classic,$REPS,0,0,[0-9.]+,[0-9.]+,0\.00\$" "$c" || missing+=" $k/classic"
	done
	if [ -z "$missing" ]; then pass "$name"; else fail "$name (missing or wrong:$missing)" "$c"; fi
else
	fail "$name" "$c"
fi

# The plot: a PNG (its 8-byte signature) of some size.
name="bench smoke: latency.png is a PNG image"
p=$out/latency.png
if [ -s "$p" ] && [ "$(head -c 8 "$p" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] &&
	[ "$(stat -c %s "$p")" -gt 10000 ]; then
	pass "$name"
else
	fail "$name" "$tmp/run"
fi

# The kernel said nothing alarming while the bench ran.
if [ -f "$out/console.log" ]; then
	python3 "$TOP/scripts/parse_console.py" --no-kunit "$out/console.log" |
		sed -E 's/^((not )?ok - )kernel:/\1bench smoke: kernel:/'
fi
rm -rf "$tmp"
