#!/usr/bin/env bash
# make run CMD=...: a command from the host runs in the guest, in the host
# directory it was started from (hostfs, read-only unless --rw), with only
# its own output on stdout, the kernel log in the console log file, and
# its exit status as the runner's.  A static program of the user's, a
# shell script and a freeze around a spinner, as the README shows, and
# the same through make run CMD=.  On the run flavour, make run's own,
# so that CI's make run after make test finds it built.
# needs: initramfs
# builds: make build FLAVOUR=run
. "$(dirname "$0")/lib.sh"

tmp=$(scratch)
cat >"$tmp/prog.c" <<'EOF'
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char cwd[4096];
	int fd;

	if (argc > 1) {		/* a spinner to be frozen */
		for (;;)
			;
	}
	printf("prog: cwd=%s\n", getcwd(cwd, sizeof(cwd)) ? cwd : strerror(errno));
	fd = open("from-guest", O_CREAT | O_WRONLY, 0644);
	printf("prog: create: %s\n", fd < 0 ? strerror(errno) : "ok");
	return 0;
}
EOF
if ! gcc -static -O2 -o "$tmp/prog" "$tmp/prog.c" 2>"$tmp/gcc.log"; then
	fail "run cmd: a static test program builds" "$tmp/gcc.log"
	exit 0
fi
# The run kernel: built in the background by make test (its lock makes
# this wait), else here.
if ! make -C "$TOP" --no-print-directory build FLAVOUR=run >"$LOGS/run-cmd-build.log" 2>&1; then
	fail "run cmd: kernel 'run' builds" "$LOGS/run-cmd-build.log"
	exit 0
fi
runner() { "$TOP/scripts/host/run.sh" --flavour run --timeout 600 "$@"; }

# Read-only: the program cannot create a file; a freeze of user space
# around a spinner; the script's exit status is the runner's.
runner --cwd "$tmp" -- './prog; ./prog spin & echo freeze >/sys/power/state; echo "freeze: $?"; kill $!; exit 7' \
	>"$tmp/out" 2>"$tmp/err" && rc=0 || rc=$?
printf 'prog: cwd=%s\nprog: create: Read-only file system\nfreeze: 0\n' "$tmp" >"$tmp/want"
name="run cmd: output is the command's only, and its exit status (7) the runner's"
if [ "$rc" -eq 7 ] && diff -u "$tmp/want" "$tmp/out" >"$tmp/diff"; then
	pass "$name"
else
	echo "# runner exit $rc"
	cat "$tmp/diff" "$tmp/err" >"$tmp/why" 2>/dev/null
	fail "$name" "$tmp/why"
fi
log=$(sed -n 's/.*console and kernel log: \([^;]*\);.*/\1/p' "$tmp/err")
if [ -n "$log" ] && [ -f "$TOP/$log" ]; then
	expect "run cmd: the kernel log of the freeze is in the console log file" "$TOP/$log" \
		"^---- the kernel log \(dmesg\)" "Freezing user space processes" "Restarting tasks"
else
	fail "run cmd: the runner names its console log file" "$tmp/err"
fi

# --rw: the guest writes into the host directory; through make, whose
# expansion must leave the shell's $? and quotes alone.
rm -f "$tmp/from-guest"
make -s -C "$TOP" run RW=1 CWD="$tmp" CMD='./prog; echo "it'"'"'s $?"' \
	>"$tmp/out-rw" 2>"$tmp/err-rw" && rc=0 || rc=$?
if [ "$rc" -eq 0 ] && [ -f "$tmp/from-guest" ] && grep -qx "prog: create: ok" "$tmp/out-rw" &&
	grep -qx "it's 0" "$tmp/out-rw"; then
	pass "run cmd: --rw lets the guest write the host directory"
else
	echo "# runner exit $rc; from-guest $([ -f "$tmp/from-guest" ] && echo exists || echo missing)"
	cat "$tmp/out-rw" "$tmp/err-rw" >"$tmp/why-rw"
	fail "run cmd: --rw lets the guest write the host directory" "$tmp/why-rw"
fi
rm -rf "$tmp"
