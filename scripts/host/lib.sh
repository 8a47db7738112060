# shellcheck shell=bash
# Shared helpers for every script in scripts/: paths, progress lines, running
# commands with their output kept in a log.  Source it; do not run it.
set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD=${BUILD:-$TOP/build}
# The git tree: tag "pristine" + branch "todo" (KERNEL_SRC: another tree,
# e.g. the candidates alone, scripts/host/check-candidates.sh).
SRC=${KERNEL_SRC:-$BUILD/src}
# Logs; BUILD_LOGS: elsewhere, so that a build of another tree (the
# candidates alone) does not overwrite the flavour's own build log.
LOGS=${BUILD_LOGS:-$BUILD/logs}
PRISTINE_TAG=pristine
BRANCH=todo
SOURCE_PKG=linux-source-6.12
SOURCE_TARBALL=${SOURCE_TARBALL:-/usr/src/linux-source-6.12.tar.xz}
# The two patch queues, applied in this order.  Overridable so tests can
# point the tools at a damaged copy without touching the real queues.
KERNEL_PATCHES=${KERNEL_PATCHES:-$TOP/kernel-patches}
ARCH_UM_PATCHES=${ARCH_UM_PATCHES:-$TOP/arch-um-patches}
PATCH_DIRS=("$KERNEL_PATCHES" "$ARCH_UM_PATCHES")
# The series' introduction in kernel-patches/, not applied.
COVER_LETTER=0000-cover-letter.patch
# Project identity used as the author of every exported patch.
PROJECT_NAME="todo-freezer project"
PROJECT_EMAIL="todo-freezer@users.noreply.github.com"

# usage [SCRIPT]: the script's usage, its header comment: the comment lines
# after "#!", up to the first line that is not one.
usage() {
	awk 'NR == 1 { next } !/^#/ { exit } !/^# shellcheck/ { sub(/^# ?/, ""); print }' "${1:-$0}"
}
# -h or --help as the first argument of any script that sources this: its
# usage, before anything runs.  (A sourced file sees its caller's arguments.)
case ${1:-} in -h | --help) usage; exit 0 ;; esac

mkdir -p "$LOGS"

ts() { date +%H:%M:%S; }
stage() { printf '[%s] == %s\n' "$(ts)" "$*"; }
info() { printf '[%s] %s\n' "$(ts)" "$*"; }

# die MESSAGE [NEXT-STEP...]: print the error and what to do next, exit 1.
die() {
	printf '[%s] error: %s\n' "$(ts)" "$1" >&2
	shift
	local line
	for line in "$@"; do printf '  %s\n' "$line" >&2; done
	exit 1
}

# stage_time NAME SECONDS: a row of the table of stage times that "make
# test" prints at its end (STAGE_TIMES, set by scripts/host/test.sh; nothing
# without it): kernel builds and guest boots, under the test that did them.
stage_time() { [ -z "${STAGE_TIMES:-}" ] || printf '%s\t%s\n' "$1" "$2" >>"$STAGE_TIMES"; }

# Print a command the way a user could paste it.
show_cmd() { printf '[%s] $ %s\n' "$(ts)" "$(printf '%q ' "$@")"; }

run() { show_cmd "$@"; "$@"; }

# run_logged LOG CMD...: run CMD with all output in LOG.  On failure show the
# last 30 lines and where the full log is, and return the command's status.
run_logged() {
	local log=$1 rc=0
	shift
	show_cmd "$@"
	"$@" >"$log" 2>&1 || rc=$?
	if [ "$rc" -ne 0 ]; then
		printf '[%s] command failed (exit %d); last 30 lines of %s:\n' "$(ts)" "$rc" "$log" >&2
		tail -n 30 "$log" | sed 's/^/  | /' >&2
		printf '  full log: %s\n' "$log" >&2
	fi
	return "$rc"
}

# UML backs guest memory with a file in the first of $TMPDIR, $TMP, $TEMP,
# else /dev/shm when it is tmpfs, else /tmp (arch/um/os-Linux/mem.c), and
# maps it executable.  On a noexec mount the boot dies early and quietly.
uml_tempdir() {
	local var
	for var in TMPDIR TMP TEMP; do
		if [ -n "${!var:-}" ]; then echo "${!var}"; return; fi
	done
	if [ "$(stat -f -c %T /dev/shm 2>/dev/null)" = tmpfs ]; then echo /dev/shm; else echo /tmp; fi
}

# check_tempdir: die, with the fix, unless UML can map memory from that dir.
check_tempdir() {
	local dir opts mnt
	dir=$(uml_tempdir)
	[ -d "$dir" ] && [ -w "$dir" ] ||
		die "UML's temp dir $dir does not exist or is not writable" \
			"point TMPDIR at a writable directory, e.g. TMPDIR=/tmp make ..."
	opts=$(findmnt -n -o OPTIONS -T "$dir")
	mnt=$(findmnt -n -o TARGET -T "$dir")
	case ",$opts," in
	*,noexec,*)
		die "UML maps guest memory executable from a file in $dir, but $mnt is mounted noexec; the kernel would die silently at boot" \
			"fix: use an exec-capable temp dir, e.g. TMPDIR=$BUILD/tmp (mkdir it first)," \
			"or remount: mount -o remount,exec $mnt" ;;
	esac
}

# The flavour table, configs/flavours.mk (the Makefile includes it too).
# flavour_table KEY: its VALUE, empty when the key is not there.
flavour_table() { sed -n "s/^$1 *:= *//p" "$TOP/configs/flavours.mk"; }

# The config fragments of a flavour; dies on an unknown flavour.
flavour_fragments() {
	local frags
	frags=$(flavour_table "fragments.$1")
	[ -n "$frags" ] || die "unknown flavour '$1'" \
		"use one of: $(sed -n 's/^fragments\.\([^ ]*\) .*/\1/p' "$TOP/configs/flavours.mk" | paste -sd' ')"
	echo "$frags"
}

# default_flavour CMD: the flavour of "make CMD" and scripts/CMD.sh when
# none is named.
default_flavour() { flavour_table "default.$1"; }

# flavour_opt CMD [--flavour F]: the flavour of scripts/CMD.sh, which
# takes no other argument: F (checked), else CMD's default.
flavour_opt() {
	case $#:${2:-} in
	1:) default_flavour "$1" ;;
	3:--flavour) flavour_fragments "$3" >/dev/null && echo "$3" ;;
	*) die "$1.sh: unknown arguments '${*:2}'" "usage: scripts/$1.sh [--flavour F]" ;;
	esac
}

# The kernel's ARCH= for a flavour: smp and its variants (smp-debug) are
# x86_64 kernels for QEMU.
flavour_arch() {
	case $1 in
	smp | smp-*) echo x86_64 ;;
	*) echo um ;;
	esac
}

# What the fragments are merged onto: a defconfig file in the kernel tree,
# or "allnoconfig" (everything off; the fragment names all it needs).
flavour_base() {
	case $(flavour_arch "$1") in
	um) echo arch/um/configs/x86_64_defconfig ;;
	*) echo allnoconfig ;;
	esac
}

# The file a flavour boots, relative to its object dir.
flavour_image() { flavour_table "image.$1"; }

obj_dir() { echo "${OBJ_DIR:-$BUILD/obj-$1}"; }

# hold_lock FILE WHAT: hold FILE (flock) until this script exits, so that
# two makes never write one object dir or tree at once: make test's
# background builds and a test that needs the same kernel, or two
# terminals.  When another holds it, say who and wait; the wait is a row
# of make test's stage table.  The lock goes with this process and the
# children that inherit it (the kernel's make), however they end.
hold_lock() {
	local file=$1 what=$2 fd t0=$SECONDS
	mkdir -p "$(dirname "$file")"
	exec {fd}>>"$file"
	if ! flock -n "$fd"; then
		info "waiting for another build of $what to finish (${file#"$TOP"/}: $(cat "$file.owner" 2>/dev/null || echo unknown))"
		flock "$fd"
		info "waited $((SECONDS - t0)) s for the other build of $what"
		stage_time "waited for another build of $what" "$((SECONDS - t0))"
	fi
	printf 'pid %s (%s) since %s\n' "$$" "${0##*/}" "$(ts)" >"$file.owner"
}

# link_top FLAVOUR: ./linux and ./vmlinux are that UML kernel (build.sh
# after building it, run.sh before booting it).
link_top() {
	local obj
	obj=$(obj_dir "$1")
	ln -sfn "${obj#"$TOP"/}/linux" "$TOP/linux"
	ln -sfn "${obj#"$TOP"/}/vmlinux" "$TOP/vmlinux"
}

# Patch names listed in DIR/series, in order (comments and blanks skipped).
series_patches() {
	local dir=$1 name
	[ -f "$dir/series" ] || die "$dir/series is missing" "create it (one patch file name per line)"
	while read -r name; do
		case $name in '' | \#*) continue ;; esac
		[ -f "$dir/$name" ] || die "$dir/series names $name, which does not exist" \
			"fix the series file or run 'make refresh'"
		echo "$dir/$name"
	done <"$dir/series"
}

# Every patch of the series, kernel-patches first, as paths.
all_patches() {
	local dir
	for dir in "${PATCH_DIRS[@]}"; do series_patches "$dir"; done
}

ccache_cc() {
	if command -v ccache >/dev/null 2>&1; then echo "ccache gcc"; else echo gcc; fi
}

git_src() { git -C "$SRC" "$@"; }

# The Makefile's target for "build/src holds the series": written by
# source.sh after applying it and by refresh.sh after exporting it, and
# newer than every series file and patch then.  It holds the todo head of
# that moment: work on top of it is not exported yet.
STAMP=$SRC/.git/SERIES_APPLIED
mark_applied() { git_src rev-parse HEAD >"$STAMP"; }

# check_series_applies: apply every patch, in order, to a scratch index that
# holds the pristine tree (build/src is not touched).  git apply allows no
# fuzz: every context line must match.  On failure print the patch and the
# rejected file(s) and return 1.
check_series_applies() {
	local index patch out rejected rc=0
	index=$(mktemp)
	GIT_INDEX_FILE=$index git_src read-tree "$PRISTINE_TAG"
	while read -r patch; do
		if ! out=$(GIT_INDEX_FILE=$index git_src apply --cached "$patch" 2>&1); then
			rejected=$(sed -n 's/^error: \(.*\): patch does not apply$/\1/p; s/^error: patch failed: \(.*\):[0-9]*$/\1/p' <<<"$out" | sort -u | paste -sd' ')
			printf '[%s] error: patch %s does not apply to pristine %s %s\n' "$(ts)" \
				"${patch#"$TOP"/}" "$SOURCE_PKG" "$(cat "$BUILD/SOURCE_VERSION" 2>/dev/null)" >&2
			printf '  rejected file(s): %s\n' "${rejected:-see below}" >&2
			sed 's/^/  | /' <<<"$out" >&2
			rc=1
			break
		fi
		info "  applies: ${patch#"$TOP"/}"
	done < <(all_patches)
	rm -f "$index"
	return "$rc"
}

# Test results are KTAP (docs/console.md).  A test's results are lines "ok
# N - NAME" and "not ok N - NAME", each also a line of its results file,
# its status: the file numbers them across subshells, and says whether
# the test failed (ktap_subtest).
# ktap_result STATUS NAME RESULTS: result "STATUS N - NAME", N the next
# number in file RESULTS, and add it there.
ktap_result() {
	echo "$1" >>"$3"
	echo "$1 $(wc -l <"$3") - $2"
}

# ktap_subtest N NAME OUT RESULTS: the results in file OUT as subtest N NAME
# of a KTAP document, closed by "not ok N NAME" if file RESULTS lists a
# failed result, else by "ok N NAME".
ktap_subtest() {
	local status=ok
	! grep -qx 'not ok' "$4" || status="not ok"
	printf '    KTAP version 1\n    # Subtest: %s\n' "$2"
	sed 's/^/    /' "$3"
	echo "$status $1 $2"
}

# draw_timeline LOG OUT TITLE: the picture of one freeze per freezer, one
# lane per task, from the TIMELINE blocks a guest printed in the console
# LOG (tests/guest/timeline.h): scripts/host/timeline.py writes OUT/timeline.dat
# and OUT/timeline.gp, gnuplot draws OUT/timeline.png.  For "make demo" and
# "make bench TIMELINE=kind,N".  Prints the paths of the PNG and its data.
draw_timeline() {
	local log=$1 out=$2 title=$3
	command -v gnuplot >/dev/null ||
		die "no gnuplot: cannot draw the timeline" "run: make deps (package gnuplot-nox)"
	mkdir -p "$out"
	rm -f "$out"/timeline.{png,dat,gp}
	grep -q '^TIMELINE-END ' "$log" ||
		die "no timeline in ${log#"$TOP"/}: the guest traced no freeze" \
			"the kernel needs tracepoints and CONFIG_FREEZER_BENCH: the bench or test flavour;" \
			"see the guest's reason: grep -i timeline $log"
	run python3 "$TOP/scripts/host/timeline.py" --log "$log" --out "$out" --title "$title" ||
		die "scripts/host/timeline.py could not read the timeline in $log" \
			"re-run it by hand: python3 scripts/host/timeline.py --log $log --out $out"
	# gnuplot warns about every series a panel has no point for (a classic
	# freeze queues no item): keep its output in a log, shown on failure.
	run_logged "$out/timeline.gnuplot.log" gnuplot "$out/timeline.gp" ||
		die "gnuplot could not draw $out/timeline.png" "see $out/timeline.gp"
	[ -s "$out/timeline.png" ] || die "gnuplot wrote no $out/timeline.png" "see $out/timeline.gp"
	info "timeline picture: ${out#"$TOP"/}/timeline.png"
	info "timeline data:    ${out#"$TOP"/}/timeline.dat"
}

# trace.dat: a freeze recorded in the guest by the host's trace-cmd
# (scripts/guest/tracecmd-lib.sh), read here with trace-cmd report.
# tracecmd_check: die unless trace-cmd is installed.
tracecmd_check() {
	command -v trace-cmd >/dev/null ||
		die "trace-cmd is not installed: the guest runs the host's trace-cmd to record the trace.dat" \
			"run: make deps (it installs the Debian package trace-cmd), or: apt-get install -y trace-cmd"
}

# tracedat_arg NAME FILE: the kernel parameter NAME=FILE that tells the
# guest where on the host to write a trace.dat (or a directory), FILE made
# absolute; dies if the command line cannot carry it.
tracedat_arg() {
	local path
	path=$(realpath -m "$2")
	[[ $path != *[[:space:]]* ]] ||
		die "the guest cannot be told to write to '$path': a kernel parameter has no spaces" \
			"use an output directory without spaces"
	echo "$1=$path"
}

# tracedat_frozen FILE: the freezer:task_frozen events of trace.dat FILE,
# counted: a line "FREEZER HOW N" per freezer and how= seen.  Status 1 if
# trace-cmd report cannot read FILE.
tracedat_frozen() {
	local report
	report=$(trace-cmd report "$1" 2>&1) || { printf '%s\n' "$report" | tail -n 5 >&2; return 1; }
	sed -n 's/.* task_frozen: .* freezer=\([a-z]*\) how=\([a-z_]*\).*/\1 \2/p' <<<"$report" |
		sort | uniq -c | awk '{ print $2, $3, $1 }'
}

# tracedat_show FILE: where the trace.dat is, what it holds, how to open it.
tracedat_show() {
	local counts
	counts=$(tracedat_frozen "$1") ||
		die "trace-cmd report cannot read ${1#"$TOP"/}" "see the console log: the guest's trace-cmd lines"
	info "trace.dat: ${1#"$TOP"/} ($(du -k "$1" | cut -f1) KiB); task_frozen events:" \
		"$(awk '$1 != f { printf "%s%s:", (f == "" ? "" : "; "), $1; f = $1 } { printf " %s=%s", $2, $3 }' <<<"$counts")"
	info "  read it: trace-cmd report ${1#"$TOP"/}; open it: kernelshark ${1#"$TOP"/}"
}

# sleepgraph_render DIR: DIR/sleepgraph.html, the kernel tree's sleepgraph
# (tools/power/pm-graph, as Debian ships no pm-graph package) run on the
# host on a suspend-to-idle captured in the guest (tc_s2idle in
# scripts/guest/tracecmd-lib.sh): DIR/sleepgraph_dmesg.txt and
# DIR/sleepgraph_ftrace.txt.  Run on the host, not in the guest: its
# network probe fails there (no CONFIG_INET).  Its output in
# DIR/sleepgraph.log; its "TEST FAILED" on UML is explained in
# docs/trace.md.
sleepgraph_render() {
	local dir=$1 sg=$SRC/tools/power/pm-graph/sleepgraph.py f
	[ -f "$sg" ] || die "no sleepgraph at ${sg#"$TOP"/}" "unpack the kernel source: make source"
	for f in "$dir"/sleepgraph_{dmesg,ftrace}.txt; do
		[ -s "$f" ] || die "no capture for sleepgraph: ${f#"$TOP"/} is missing or empty" \
			"the guest's suspend-to-idle failed; see its lines in the console log"
	done
	rm -f "$dir/sleepgraph.html"
	run_logged "$dir/sleepgraph.log" python3 "$sg" -dmesg "$dir/sleepgraph_dmesg.txt" \
		-ftrace "$dir/sleepgraph_ftrace.txt" ||
		die "sleepgraph could not render the capture in ${dir#"$TOP"/}" "see $dir/sleepgraph.log"
	[ -s "$dir/sleepgraph.html" ] || die "sleepgraph wrote no ${dir#"$TOP"/}/sleepgraph.html" "see $dir/sleepgraph.log"
	if grep -q 'FAILED' "$dir/sleepgraph.log"; then
		info "sleepgraph says: $(grep -m1 'FAILED' "$dir/sleepgraph.log")"
		info "  (UML's suspend-to-idle does not freeze timekeeping: docs/trace.md)"
	fi
	info "sleepgraph: ${dir#"$TOP"/}/sleepgraph.html"
}
