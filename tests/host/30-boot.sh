#!/usr/bin/env bash
# Boot the test kernel: it carries the -todo stamp, and the runner copes with
# a guest that hangs and with a temp dir UML cannot map executable memory from.
# needs: build initramfs
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../../scripts/host/lib/session.sh"

tmp=$(scratch)
boot() { "$TOP/scripts/host/boot.sh" --flavour "$TEST_FLAVOUR" "$@"; }

boot --job run --timeout 300 >"$tmp/run" 2>&1 && rc=0 || rc=$?
if [ "$rc" -eq 0 ]; then
	expect "boot: guest uname -r carries the -todo stamp" "$tmp/run" \
		"^guest: kernel release: 6\.12\.[0-9]+-todo\$"
else
	fail "boot: guest uname -r carries the -todo stamp (boot exited $rc)" "$tmp/run"
fi

# The runner must kill a hung guest at its timeout, say so, and leave no
# UML process behind (boot.sh exits 126 if it finds one).
boot --job hang --timeout 20 >"$tmp/hang" 2>&1 && rc=0 || rc=$?
if [ "$rc" -eq 124 ]; then
	expect "boot: a hung guest is killed at the timeout and reported" "$tmp/hang" \
		"timed out after 20 s" "guest: hanging on purpose"
else
	fail "boot: a hung guest is killed at the timeout and reported (exit $rc, want 124)" "$tmp/hang"
fi

# A noexec temp dir is named, with the fix, before anything boots.
name="boot: a noexec temp dir is detected before boot and named"
if mkdir -p "$tmp/noexec" && mount -t tmpfs -o noexec,size=1m tmpfs "$tmp/noexec" 2>/dev/null; then
	TMPDIR=$tmp/noexec boot --job run --timeout 60 >"$tmp/nx" 2>&1 && rc=0 || rc=$?
	umount "$tmp/noexec"
	if [ "$rc" -ne 0 ] && ! grep -q "booting" "$tmp/nx"; then
		expect "$name" "$tmp/nx" "$tmp/noexec.* mounted noexec" "fix: "
	else
		fail "$name (exit $rc)" "$tmp/nx"
	fi
else
	skip "$name" "cannot mount a tmpfs here (needs root)"
fi
# make run on a terminal leaves the user at a guest shell (script(1) gives
# it a pseudo-terminal): the hint is shown, typed commands run, exit
# powers the guest off.
name="boot: make run on a terminal gives a guest shell with the freeze hint"
# The lines are typed once the shell is up (busybox's line editing drops
# what came before it), from a feeder that stays open so that script(1)
# sees no end of input until the guest is gone.
feeder() {
	echo "$BASHPID" >"$tmp/feeder.pid"
	session_wait_line --log "$tmp/shell" --timeout 300 '^/ # ' || true
	sleep 1
	printf 'echo marker-$((6 * 7))\n'
	sleep 2
	printf 'exit\n'
	exec sleep 300
}
timeout 300 script -qfec "$TOP/scripts/host/run.sh --flavour $TEST_FLAVOUR" /dev/null \
	< <(feeder) >"$tmp/shell" 2>&1 && rc=0 || rc=$?
kill "$(cat "$tmp/feeder.pid" 2>/dev/null)" 2>/dev/null || true
tr -d '\r' <"$tmp/shell" >"$tmp/shell.txt"
if [ "$rc" -eq 0 ]; then
	expect "$name" "$tmp/shell.txt" "with a shell on this terminal" \
		"guest: to freeze user space" "^marker-42\$" "reboot: (Power down|System halted)"
else
	fail "$name (exit $rc)" "$tmp/shell.txt"
fi
rm -rf "$tmp"
