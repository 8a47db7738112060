# shellcheck shell=bash
# Checks on what the report scripts write (scripts/host/bench_report.py,
# trace_report.py, timeline.py), shared by the host tests that run them on
# a live boot (60-bench-smoke, 75-trace, 85-demo) and by "make check"
# (tests/check/), which runs them on the saved logs in tests/data/.
# Source after lib.sh.
. "${BASH_SOURCE[0]%/*}/../../scripts/host/lib/tracedat.sh"

# check_bench_out PREFIX OUT REPS LOG: the checks on the output directory
# OUT of scripts/host/bench.sh or scripts/host/bench_report.py for a run of every
# kind at N = 10 with REPS repetitions: a well-formed table, CSVs and PNG,
# not that anything is fast.  PREFIX names the results, LOG is shown when
# a file is missing.  With a fifth argument "no-vmlinux" the report was
# made without the kernel image, so it cannot say what task_struct holds.
check_bench_out() {
	local prefix=$1 out=$2 REPS=$3 log=$4 vmlinux=${5:-} t c p k pats rows want bad missing name
	local mem='^struct task_struct \((pahole|gdb ptype/o)\): .*freeze_todo [0-9]+ bytes.*; [0-9]+ bytes added per task'
	[ "$vmlinux" != no-vmlinux ] || mem='^struct task_struct: not read'

	local KINDS=(spin pause pipe nanosleep threads uring cgroup2)
	# table.txt: the header, a section per kind with a todo, a classic and a
	# floor row for N = 10, the memory and the targets.
	t=$out/table.txt
	name="$prefix: table.txt has a section per kind with todo, classic and floor rows"
	if [ -s "$t" ]; then
		pats=("^Freezer bench: kernel 6\.12\.[0-9]+-todo, $REPS repetitions"
			"^ +N freezer +reps [|] freeze med +min +max +us/task [|] +thaw med .*[|] +fret med +tret med [|]")
		for k in "${KINDS[@]}"; do
			pats+=("^== $k: ")
		done
		# The return times ("-": not reported), then the ratios on the todo
		# row: todo/classic freeze, thaw, and of the return times, todo/floor.
		pats+=("^ +10 todo +$REPS [|]( +[0-9]+\.[0-9]+){4} [|]( +[0-9]+\.[0-9]+){4} [|]( +([0-9]+\.[0-9]+|-)){2} [|]( +[0-9]+(\.[0-9]+)?){2}( +([0-9]+(\.[0-9]+)?|-)){2} [|]( +[0-9]+(\.[0-9]+)?){2}\$"
			"^ +10 classic +$REPS [|]( +[0-9]+\.[0-9]+){4} [|]( +[0-9]+\.[0-9]+){4} [|]"
			"^ +10 floor +$REPS [|]( +[0-9]+\.[0-9]+){4} [|]"
			"$mem"
			"^allocations per task per freeze\+thaw, pause n=10: todo "
			"^== targets" "todo/classic freeze <= 1\.0" "within 2x the floor"
			"^(met|MISSED|n/a) +todo/classic freeze return <= 0\.8"
			"^(met|MISSED|n/a) +todo/classic thaw return <= 1\.0 at N = 4000")
		expect "$name" "$t" "${pats[@]}"
		rows=$(grep -cE "^ +10 (todo|classic|floor) +$REPS [|]" "$t" || true)
		want=$((3 * ${#KINDS[@]}))
		name="$prefix: table.txt has $want rows for N = 10 (kinds x todo, classic, floor)"
		if [ "$rows" -eq "$want" ]; then pass "$name"; else fail "$name (found $rows)" "$t"; fi
		name="$prefix: the guest reported no errors"
		if grep -q "^== errors in the guest" "$t"; then fail "$name" "$t"; else pass "$name"; fi
	else
		fail "$name (no $t)" "$log"
	fi

	# The CSVs: exact headers, and one row per freeze and floor run.
	name="$prefix: results.csv has its header and a row per freeze and floor run"
	c=$out/results.csv
	if header_is "$c" "kind,n,freezer,rep,freeze_ns,thaw_ns,frozen,left,freeze_ret_ns,thaw_ret_ns"; then
		# kinds x 2 freezers x reps, the same with no tasks (base), the floor
		want=$((${#KINDS[@]} * 2 * REPS + 2 * REPS + REPS))
		rows=$(tail -n +2 "$c" | grep -cE '^[a-z0-9]+,[0-9]+,(todo|classic|floor),[0-9]+,[0-9]+(,[0-9]*){5}$' || true)
		bad=$(tail -n +2 "$c" | grep -cvE '^[a-z0-9]+,[0-9]+,(todo|classic|floor),[0-9]+,[0-9]+(,[0-9]*){5}$' || true)
		if [ "$rows" -eq "$want" ] && [ "$bad" -eq 0 ]; then
			pass "$name"
		else
			fail "$name ($rows good rows, want $want; $bad malformed)" "$c"
		fi
	else
		fail "$name" "$c"
	fi
	name="$prefix: summary.csv has its header and a todo and a classic row per kind"
	c=$out/summary.csv
	if header_is "$c" 'kind,n,freezer,reps,freeze_median_ns,freeze_min_ns,freeze_max_ns,freeze_us_per_task,thaw_median_ns,.*,todo_classic_freeze,todo_classic_thaw,todo_floor_freeze,todo_floor_thaw,extra_tasks,freeze_ret_median_ns,.*,todo_classic_freeze_ret,todo_classic_thaw_ret'; then
		missing=""
		for k in "${KINDS[@]}"; do
			# the four ratios and extra_tasks, then 10 return-time columns
			grep -qE "^$k,10,todo,$REPS,[0-9]+(,[^,]*){7}(,[0-9.]+){5}(,[^,]*){10}\$" "$c" || missing+=" $k/todo"
			grep -qE "^$k,10,classic,$REPS,[0-9]+," "$c" || missing+=" $k/classic"
		done
		grep -qE "^floor,10,floor,$REPS,[0-9]+," "$c" || missing+=" floor"
		if [ -z "$missing" ]; then pass "$name"; else fail "$name (missing:$missing)" "$c"; fi
	else
		fail "$name" "$c"
	fi
	name="$prefix: alloc.csv has its header and a row per kind and freezer"
	c=$out/alloc.csv
	if header_is "$c" "kind,n,freezer,events,base_events,per_task,status"; then
		rows=$(grep -cE '^[a-z0-9]+,10,(todo|classic),' "$c" || true)
		if [ "$rows" -eq $((2 * ${#KINDS[@]})) ]; then pass "$name"; else fail "$name ($rows rows)" "$c"; fi
	else
		fail "$name" "$c"
	fi

	# How the tasks were frozen: every kind and freezer has a row, the classic
	# freezer never runs a todo item and the todo freezer never the refrigerator.
	name="$prefix: how.csv says how each kind's tasks were frozen, per freezer"
	c=$out/how.csv
	if header_is "$c" "kind,n,freezer,reps,item,in_place,refrigerator,item_share"; then
		missing=""
		for k in "${KINDS[@]}"; do
			grep -qE "^$k,10,todo,$REPS,[0-9.]+,[0-9.]+,0,[0-9.]+\$" "$c" || missing+=" $k/todo"
			grep -qE "^$k,10,classic,$REPS,0,[0-9.]+,[0-9.]+,0\.00\$" "$c" || missing+=" $k/classic"
		done
		if [ -z "$missing" ]; then pass "$name"; else fail "$name (missing or wrong:$missing)" "$c"; fi
	else
		fail "$name" "$c"
	fi

	# The plot: a PNG (its 8-byte signature) of some size.
	name="$prefix: latency.png is a PNG image"
	p=$out/latency.png
	if [ -s "$p" ] && [ "$(head -c 8 "$p" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] &&
		[ "$(stat -c %s "$p")" -gt 10000 ]; then
		pass "$name"
	else
		fail "$name" "$log"
	fi
}

# check_trace_out PREFIX MODE OUT LOG: the checks on the output directory
# OUT of scripts/host/trace.sh or scripts/host/trace_report.py for a run in MODE
# (start or attach); PREFIX names the results, LOG is shown on failure.
check_trace_out() {
	local prefix=$1 mode=$2 out=$3 log=$4 w name rows bad todo classic
	local NUM='[0-9]+\.[0-9]+'

	name="$prefix: the markers are UML's own console write()s in the strace log"
	if [ -s "$out/strace.log" ]; then
		expect "$name" "$out/strace.log" \
			'^[0-9]+\.[0-9]{6} write\([0-9]+, "TODO-FREEZE-BEGIN todo"' \
			'^[0-9]+\.[0-9]{6} write\([0-9]+, "TODO-FREEZE-END todo 0"' \
			'^[0-9]+\.[0-9]{6} write\([0-9]+, "TODO-FREEZE-BEGIN classic"' \
			'^[0-9]+\.[0-9]{6} write\([0-9]+, "TODO-FREEZE-END classic 0"'
	else
		fail "$name (no strace.log)" "$log"
	fi

	name="$prefix: summary.txt has a window row per freezer, idle and outside, and the table"
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
		name="$prefix: the summary reports no error"
		if grep -q '^error:' "$out/summary.txt"; then fail "$name" "$out/summary.txt"; else pass "$name"; fi
	else
		fail "$name (no summary.txt)" "$log"
	fi

	name="$prefix: windows.csv has both freeze windows, non-empty, status 0"
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

	name="$prefix: summary.csv has its header and well-formed rows, syscalls inside both freezes"
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

# check_timeline PNG DAT LOG: prints what is wrong, fails if anything is.
check_timeline() {
	python3 - "$@" <<'PY'
import struct
import sys
import zlib

png, dat, log = sys.argv[1:]
errors = []
try:
    b = open(png, 'rb').read()
except OSError as e:
    sys.exit('# %s' % e)
if b[:8] != b'\x89PNG\r\n\x1a\n':
    errors.append('no PNG signature')
else:
    pos, chunks = 8, []
    while pos + 8 <= len(b):
        n, typ = struct.unpack('>I4s', b[pos:pos + 8])
        data, crc = b[pos + 8:pos + 8 + n], b[pos + 8 + n:pos + 12 + n]
        if len(data) != n or len(crc) != 4:
            errors.append('chunk %r truncated' % typ)
            break
        if zlib.crc32(typ + data) != struct.unpack('>I', crc)[0]:
            errors.append('chunk %r has a bad CRC' % typ)
        chunks.append((typ, data))
        pos += 12 + n
        if typ == b'IEND':
            break
    if not chunks or chunks[0][0] != b'IHDR' or len(chunks[0][1]) != 13:
        errors.append('the first chunk is not an IHDR')
    else:
        w, h = struct.unpack('>II', chunks[0][1][:8])
        if not w or not h:
            errors.append('IHDR size %dx%d' % (w, h))
        print('# %s: %dx%d, %d chunks' % (png, w, h, len(chunks)))
    if not chunks or chunks[-1][0] != b'IEND':
        errors.append('no IEND chunk')
pids, freezer_pid = None, False
for line in open(log, errors='replace'):
    if line.startswith('DEMO-TASKS: '):
        pids = sorted(int(p) for p in line.split()[1:])
    # Guests that trace the freezing task's wake-ups name it: freezer_pid=.
    freezer_pid |= line.startswith('TIMELINE-BEGIN freezer=todo ') and ' freezer_pid=' in line
if not pids:
    errors.append('no DEMO-TASKS line in %s' % log)
lanes, fwakes = {}, {}
for line in open(dat):
    f = line.split()
    if line.startswith('#') or len(f) < 5:
        continue
    if f[4] == 'lane':
        lanes.setdefault(f[0], []).append(int(f[2]))
    elif f[4] == 'fwake':
        fwakes[f[0]] = fwakes.get(f[0], 0) + 1
for fz in ('todo', 'classic'):
    got = sorted(lanes.get(fz, []))
    if got != pids:
        errors.append('%s freezer: lanes for pids %s, the workload tasks are %s' % (fz, got, pids))
    else:
        print('# %s freezer: %d lanes, one per workload task' % (fz, len(got)))
    if freezer_pid:
        print('# %s freezer: the freezing task was woken %d time(s) in the freeze' % (
            fz, fwakes.get(fz, 0)))
# The todo freezer's freezing task sleeps until the last task to freeze
# wakes it: the spinner, at least, runs its freeze item.
if freezer_pid and not fwakes.get('todo'):
    errors.append('todo freezer: the freezing task was not woken in the freeze')
for e in errors:
    print('# ' + e)
sys.exit(1 if errors else 0)
PY
}

# check_tracedat NAME FILE LOG: result NAME, that trace-cmd report reads
# trace.dat FILE and finds freezer:task_frozen events of both freezers
# (make trace, make demo: one freeze each); LOG is shown when FILE is
# missing.
check_tracedat() {
	local name="$1: trace-cmd report reads ${2##*/}, with task_frozen events of both freezers" counts
	if [ ! -s "$2" ]; then
		fail "$name (no $2)" "$3"
	elif ! counts=$(tracedat_frozen "$2" 2>&1); then
		fail "$name (trace-cmd report failed: $counts)"
	elif grep -q '^todo ' <<<"$counts" && grep -q '^classic ' <<<"$counts"; then
		pass "$name"
	else
		fail "$name (task_frozen events: $(tr '\n' ' ' <<<"$counts"))"
	fi
}

# check_sleepgraph_html HTML: the page sleepgraph drew parses as HTML
# (Python's parser, every div closed), names freeze_processes and
# thaw_processes, the freezer's phases, in its timeline, and carries no
# failure banner (its "testfail" table: "test did not enter freeze (S2idle)
# power mode" when no timekeeping_freeze event was traced).
check_sleepgraph_html() {
	python3 - "$1" <<'PY'
import sys
from html.parser import HTMLParser

class Page(HTMLParser):
    def __init__(self):
        super().__init__()
        self.depth, self.text, self.tags = 0, [], 0
        self.fail, self.failures = 0, []
    def handle_starttag(self, tag, attrs):
        self.tags += 1
        self.depth += tag == 'div'
        self.text += [v for k, v in attrs if k == 'title' and v]
        if tag == 'table' and ('class', 'testfail') in attrs:
            self.fail = 1
    def handle_endtag(self, tag):
        self.depth -= tag == 'div'
        if tag == 'table':
            self.fail = 0
    def handle_data(self, data):
        self.text.append(data)
        if self.fail and data.strip():
            self.failures.append(data.strip())

errors = []
try:
    page = Page()
    page.feed(open(sys.argv[1], encoding='utf-8').read())
    page.close()
except (OSError, UnicodeDecodeError) as e:
    sys.exit('# %s' % e)
if page.depth:
    errors.append('%d div(s) left open' % page.depth)
text = '\n'.join(page.text)
for phase in ('freeze_processes', 'thaw_processes'):
    names = [t for t in page.text if t.startswith(phase)]
    if names:
        print('# %s: %s' % (phase, names[0].strip()))
    else:
        errors.append('no %s in the timeline' % phase)
for f in page.failures:
    errors.append('sleepgraph failed the test: %s' % f)
print('# %s: %d tags' % (sys.argv[1], page.tags))
for e in errors:
    print('# ' + e)
sys.exit(1 if errors else 0)
PY
}
