#!/usr/bin/env bash
# Make build/initramfs.cpio with the kernel's own usr/gen_init_cpio (no root,
# no fakeroot): Debian's busybox-static, the guest init, jobs and their
# libraries from scripts/guest/, and the guest test programs from
# tests/guest/*.c, compiled statically.  /dev/console and /dev/null exist
# before devtmpfs is mounted.
. "$(dirname "$0")/lib/base.sh"
help_if_asked "$@"

BUSYBOX=${BUSYBOX:-/bin/busybox}
OUT=$BUILD/initramfs.cpio
WORK=$BUILD/initramfs
# kselftest_harness.h itself trips -Wunused-parameter and -Wclobbered.
GUEST_CFLAGS=(-static -O2 -g -Wall -Wextra -Wno-unused-parameter -Wno-clobbered -Werror -pthread
	-I"$SRC/tools/testing/selftests" -I"$TOP/tests/guest")

main() {
	local list=$WORK/list gen=$WORK/gen_init_cpio src bin applet f
	[ -x "$BUSYBOX" ] || die "no static busybox at $BUSYBOX" "run: make deps (package busybox-static)"
	[ -f "$SRC/usr/gen_init_cpio.c" ] || die "no kernel tree at $SRC" "run: make source"
	stage "building the initramfs ${OUT#"$TOP"/}"
	# Afresh: a program whose source was removed or renamed must not linger.
	rm -rf "$WORK/bin"
	mkdir -p "$WORK/bin"
	run gcc -O2 -o "$gen" "$SRC/usr/gen_init_cpio.c"
	for src in "$TOP"/tests/guest/*.c; do
		[ -e "$src" ] || continue
		bin=$WORK/bin/$(basename "$src" .c)
		run_logged "$LOGS/guest-cc.log" gcc "${GUEST_CFLAGS[@]}" -o "$bin" "$src" ||
			die "guest program ${src#"$TOP"/} does not compile" "see $LOGS/guest-cc.log"
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
	} >"$list"
	show_cmd "$gen" "$list"
	"$gen" "$list" >"$OUT.tmp"
	mv "$OUT.tmp" "$OUT"
	info "initramfs: $(du -h "$OUT" | cut -f1), $(grep -c '^file /tests/' "$list") guest test program(s)"
}

main "$@"
