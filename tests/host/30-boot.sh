#!/usr/bin/env bash
# Boot the test kernel: it carries the -todo stamp, and the runner copes with
# a guest that hangs and with a temp dir UML cannot map executable memory from.
. "$(dirname "$0")/lib.sh"

tmp=$(scratch)
boot() { "$TOP/scripts/boot.sh" --flavour "$TEST_FLAVOUR" "$@"; }

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
rm -rf "$tmp"
