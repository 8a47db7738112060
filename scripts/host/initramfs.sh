#!/usr/bin/env bash
# Make build/initramfs.cpio with the kernel's own usr/gen_init_cpio (no root,
# no fakeroot): Debian's busybox-static, the guest init, jobs and their
# libraries from scripts/guest/, and the guest test programs from
# tests/guest/*.c, compiled statically, with /tests/JOBS: a line "PROG
# JOB..." per program, the guest jobs its " * job:" line declares
# (docs/testing.md).  /dev/console and /dev/null exist before devtmpfs is
# mounted.
. "$(dirname "$0")/lib/base.sh"
help_if_asked "$@"

BUSYBOX=${BUSYBOX:-/bin/busybox}
OUT=$BUILD/initramfs.cpio
WORK=$BUILD/initramfs
# kselftest_harness.h itself trips -Wunused-parameter and -Wclobbered.
# The programs are compiled in the top directory with the paths from there,
# so that the compiler's diagnostics and __FILE__ (in the harness's TH_LOG
# and ASSERT lines) name tests/guest/NAME.c and build/src/..., wherever
# the clone is.
GUEST_CFLAGS=(-static -O2 -g -Wall -Wextra -Wno-unused-parameter -Wno-clobbered -Werror -pthread
	-I"${SRC#"$TOP"/}/tools/testing/selftests" -Itests/guest)

# The declaration, one line in a program's top comment: " * job: test smp".
JOB_LINE='^ \* job:'

# The guest jobs, scripts/guest/jobs/NAME-job.sh, by NAME.
job_names() {
	local f names=()
	for f in "$TOP"/scripts/guest/jobs/*-job.sh; do
		f=${f##*/} names+=("${f%-job.sh}")
	done
	echo "${names[*]}"
}

# declared_jobs SRC: the guest jobs SRC's job line names.  Without one a
# program would silently run nowhere.  TEST_HARNESS_MAIN is refused: the
# kernel's main() has no --list (its -l prints a table to stderr, variants
# zipped with tests, and exits 4), no --match, no --freezer, so the test
# job could neither list nor choose its tests.
declared_jobs() {
	local src=$1 rel=${1#"$TOP"/} n jobs job
	n=$(grep -c "$JOB_LINE" "$src" || true)
	[ "$n" -le 1 ] || die "$rel has $n job lines" "keep one line \" * job: JOB...\" naming every job that runs it"
	jobs=$(sed -n "s/${JOB_LINE}[[:space:]]*//p" "$src")
	[ -n "${jobs// /}" ] || die "$rel declares no guest job" \
		"add to its top comment the line \" * job: test\" (or the jobs that run it: $(job_names); docs/testing.md, \"A guest program\")"
	for job in $jobs; do
		[ -f "$TOP/scripts/guest/jobs/$job-job.sh" ] ||
			die "$rel: its job line names \"$job\", which is no guest job" "the jobs: $(job_names)"
	done
	! grep -q '^[[:space:]]*TEST_HARNESS_MAIN\b' "$src" ||
		die "$rel ends with the kernel's TEST_HARNESS_MAIN, whose main() cannot --list, --match or --freezer" \
			"include \"harness_main.h\" after kselftest_harness.h and end with HARNESS_MAIN (docs/testing.md)"
	echo "$jobs"
}

# check_jobs MANIFEST: the jobs but test run their programs by name, which
# must agree with the declarations: a program that declares a job is named
# in its script (by name, or by a /tests/PREFIX* glob), and every
# /tests/NAME or /tests/PREFIX* a script runs declares that job.
check_jobs() {
	local manifest=$1 script job prog jobs ref refs named found
	for script in "$TOP"/scripts/guest/jobs/*-job.sh; do
		job=${script##*/} job=${job%-job.sh}
		[ "$job" != test ] || continue # it reads the manifest
		mapfile -t refs < <(grep -o '/tests/[a-z0-9_]\+\*\?' "$script" | sed 's|^/tests/||' | sort -u)
		for ref in "${refs[@]}"; do
			found=0
			while read -r prog jobs; do
				# shellcheck disable=SC2254 # ref may be a glob
				case $prog in $ref) found=1 ;; *) continue ;; esac
				case " $jobs " in *" $job "*) ;; *)
					die "${script#"$TOP"/} runs /tests/$ref, but tests/guest/$prog.c does not declare job $job" \
						"make its job line \" * job: $jobs $job\"" ;;
				esac
			done <"$manifest"
			[ "$found" -eq 1 ] || die "${script#"$TOP"/} runs /tests/$ref, which no tests/guest/*.c builds" "fix the name there"
		done
		while read -r prog jobs; do
			case " $jobs " in *" $job "*) ;; *) continue ;; esac
			named=0
			grep -qw -- "$prog" "$script" && named=1
			for ref in "${refs[@]}"; do
				# shellcheck disable=SC2254 # ref may be a glob
				case $prog in $ref) named=1 ;; esac
			done
			[ "$named" -eq 1 ] || die "tests/guest/$prog.c declares job $job, but ${script#"$TOP"/} does not run it" \
				"run /tests/$prog there, or take $job off its job line"
		done <"$manifest"
	done
}

main() {
	local list=$WORK/list gen=$WORK/gen_init_cpio src bin applet f jobs
	[ -x "$BUSYBOX" ] || die "no static busybox at $BUSYBOX" "run: make deps (package busybox-static)"
	[ -f "$SRC/usr/gen_init_cpio.c" ] || die "no kernel tree at $SRC" "run: make source"
	stage "building the initramfs ${OUT#"$TOP"/}"
	# Afresh: a program whose source was removed or renamed must not linger.
	rm -rf "$WORK/bin"
	mkdir -p "$WORK/bin"
	run gcc -O2 -o "$gen" "$SRC/usr/gen_init_cpio.c"
	# The manifest first: a missing declaration fails before any compile.
	# In C order, as the guest sh globbed /tests/*: the test job runs them so.
	for src in "$TOP"/tests/guest/*.c; do
		[ -e "$src" ] || continue
		jobs=$(declared_jobs "$src")
		echo "$(basename "$src" .c) $jobs"
	done | LC_ALL=C sort >"$WORK/JOBS"
	check_jobs "$WORK/JOBS"
	for src in "$TOP"/tests/guest/*.c; do
		[ -e "$src" ] || continue
		bin=$WORK/bin/$(basename "$src" .c)
		(cd "$TOP" && run_logged "$LOGS/guest-cc.log" gcc "${GUEST_CFLAGS[@]}" -o "${bin#"$TOP"/}" "${src#"$TOP"/}") ||
			die "guest program ${src#"$TOP"/} does not compile" "see ${LOGS#"$TOP"/}/guest-cc.log"
	done
	{
		echo "dir /dev 0755 0 0"
		echo "nod /dev/console 0600 0 0 c 5 1"
		echo "nod /dev/null 0666 0 0 c 1 3"
		for d in /bin /sbin /usr /usr/bin /usr/sbin /proc /sys /tmp /root /guest /guest/jobs /tests; do
			echo "dir $d 0755 0 0"
		done
		echo "file /bin/busybox $BUSYBOX 0755 0 0"
		for applet in $("$BUSYBOX" --list-full); do
			[ "/$applet" = /bin/busybox ] || echo "slink /$applet /bin/busybox 0777 0 0"
		done
		echo "file /init $TOP/scripts/guest/init 0755 0 0"
		# The tree as in scripts/guest/: the libraries, jobs/NAME-job.sh.
		for f in "$TOP"/scripts/guest/*.sh "$TOP"/scripts/guest/jobs/*-job.sh; do
			echo "file /guest/${f#"$TOP"/scripts/guest/} $f 0755 0 0"
		done
		for f in "$WORK"/bin/*; do
			[ -e "$f" ] || continue
			echo "file /tests/$(basename "$f") $f 0755 0 0"
		done
		echo "file /tests/JOBS $WORK/JOBS 0644 0 0"
	} >"$list"
	show_cmd "$gen" "$list"
	"$gen" "$list" >"$OUT.tmp"
	mv "$OUT.tmp" "$OUT"
	info "initramfs: $(du -h "$OUT" | cut -f1), $(grep -c '^file /tests/.* 0755 ' "$list") guest test program(s)"
}

main "$@"
