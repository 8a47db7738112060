#!/usr/bin/env bash
# Every make target works as the first command on a fresh clone, where
# build/ does not exist yet.  Each runs in its own clone (of HEAD, with git
# clone: what is committed) until it has done its first real step:
#  - a target that needs the kernel source has passed the package check
#    (build/PACKAGES_OK, which once could not be written into a missing
#    build/) and reached the unpacking of the source, which is pointed at a
#    missing tarball so that it stops there, naming it;
#  - a target that needs none does its own first step, as said at its
#    line below (deps checks the packages, boot finds no kernel and names
#    the build, parse reads a saved log, ...).
# No target may fail to write a file on the way.  Every target on the
# Makefile's .PHONY line has a case here: a new target needs one.
# 24 clones: 7 s on an idle 2-core machine, about 35 s at a load of 4
# (1.4 s a clone beside kernel builds): a host test (make test, or make
# test TESTS=11-first-command), not make check's quick path.
. "$(dirname "$0")/lib.sh"

# Those that reach the source first (check too: the parsers it checks are the
# kernel tree's kunit_parser.py and sleepgraph.py).
SOURCE_TARGETS=(source config build initramfs run test check stress smp-test bench trace demo debug race
	check-patches check-candidates)
missing=/nonexistent/linux-source-6.12.tar.xz
tmp=$(scratch)
covered=()

# first_command NAME MAKE-ARG...: make MAKE-ARG... as the first command of
# a fresh clone; its output, then its exit status as a line "make exit
# status: N", and whether build/PACKAGES_OK was written, in $tmp/NAME.out.
first_command() {
	local name=$1 clone=$tmp/$1 rc=0
	shift
	git clone -q "$TOP" "$clone"
	# </dev/null: make run would otherwise wait for a terminal's input.
	(cd "$clone" && SOURCE_TARBALL=$missing timeout 120 make "$@" </dev/null) >"$tmp/$name.out" 2>&1 || rc=$?
	echo "make exit status: $rc" >>"$tmp/$name.out"
	[ ! -f "$clone/build/PACKAGES_OK" ] || echo "build/PACKAGES_OK written" >>"$tmp/$name.out"
	rm -rf "$clone"
}

# wrote_all NAME RESULT: fail RESULT if the output of case NAME says a file
# could not be written (the missing tarball aside).
wrote_all() {
	! grep -q 'cannot touch\|No such file or directory' <(grep -v "$missing" "$tmp/$1.out") && return 0
	fail "$2 (a file could not be written: see below)" "$tmp/$1.out"
	return 1
}

for target in "${SOURCE_TARGETS[@]}"; do
	name="first command: make $target on a fresh clone gets past the package check to the source"
	first_command "$target" "$target"
	covered+=("$target")
	wrote_all "$target" "$name" || continue
	expect "$name" "$tmp/$target.out" '^build/PACKAGES_OK written$' "error: $missing is missing"
done

# own TARGET WHAT PATTERN... [-- MAKE-ARG...]: make TARGET (or make
# MAKE-ARG..., a case of TARGET) on a fresh clone does WHAT: its output
# matches each extended regex PATTERN.
n_own=0
own() {
	local target=$1 what=$2 pats=() args=() name
	shift 2
	while [ $# -gt 0 ] && [ "$1" != -- ]; do pats+=("$1"); shift; done
	[ $# -eq 0 ] || { shift; args=("$@"); }
	[ ${#args[@]} -gt 0 ] || args=("$target")
	n_own=$((n_own + 1))
	name="first command: make ${args[*]} on a fresh clone $what"
	first_command "own$n_own" "${args[@]}"
	covered+=("$target")
	wrote_all "own$n_own" "$name" || return 0
	expect "$name" "$tmp/own$n_own.out" "${pats[@]}"
}

own help "prints the help" '^# Front door' '^make exit status: 0$'
own deps "checks the packages" 'all [0-9]+ required Debian packages are installed|apt-get install -y'
own boot "finds no kernel and names the build" 'no kernel at .*build/obj-run/linux' 'make build FLAVOUR=run'
own parse "asks for LOG=" 'make parse needs LOG=FILE'
xz -dc "$TOP/tests/data/guest-suite.log.xz" >"$tmp/guest-suite.log"
own parse "reads a saved console log" '^ok 1 - console$' '^ok 2 - kernel: no warnings' '^make exit status: 0$' \
	-- parse LOG=../guest-suite.log
own refresh "finds no build/src and names make source" 'no tree at .*build/src' 'run: make source'
own clean "succeeds" '^make exit status: 0$'
own distclean "succeeds" '^make exit status: 0$'

# Every target has its case.
name="first command: every make target (the Makefile's .PHONY line) has a case here"
# The .PHONY line and its continuation lines, word by word.
awk '/^\.PHONY:/ { on = 1 }
	on { l = $0; sub(/^\.PHONY:/, "", l); sub(/\\$/, "", l); print l; if ($0 !~ /\\$/) exit }' "$TOP/Makefile" |
	tr -s ' \t' '\n' | grep -v -e '^FORCE$' -e '^$' | sort -u >"$tmp/targets"
printf '%s\n' "${covered[@]}" | sort -u | comm -23 "$tmp/targets" - | sed 's/^/no case for make /' >"$tmp/uncovered"
if [ -s "$tmp/uncovered" ]; then fail "$name" "$tmp/uncovered"; else pass "$name"; fi
rm -rf "$tmp"
