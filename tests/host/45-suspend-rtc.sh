#!/usr/bin/env bash
# Real suspends woken by the UML RTC alarm: five to idle and two to RAM with each
# freezer, all in one boot (tests/guest/suspend_rtc.c, guest job rtc); then
# util-linux rtcwake -m freeze and -m mem from the host in a chroot.
# KUnit is off in this boot: the guest suite reports it once.
# needs: build initramfs
. "$(dirname "$0")/lib.sh"

run_guest_job "suspend-to-idle woken by the rtc" rtc 240 "$LOGS/suspend-rtc.log"

# util-linux rtcwake, a real program, from the host's / in a chroot (hostfs,
# read-only; the guest's own /dev, /sys and /proc over the host's, so it
# arms the guest's RTC): each state must sleep until the RTC alarm, 2 RTC
# seconds ahead.  UML 6.12's "mem" came back at once.
if ! command -v rtcwake >/dev/null; then
	skip "rtcwake -m freeze and -m mem sleep until the rtc alarm" "no rtcwake on the host (util-linux)"
	exit 0
fi
tmp=$(scratch)
"$TOP/scripts/host/run.sh" --flavour test --pm-test none --timeout 120 -- '
	root=/run/host-root
	mkdir -p $root && mount -t hostfs -o ro,/ none $root &&
	mount -t devtmpfs none $root/dev && mount -t sysfs none $root/sys &&
	mount -t proc none $root/proc || exit 125
	for state in freeze mem; do
		before=$(cat /sys/class/rtc/rtc0/since_epoch)
		chroot $root rtcwake -m $state -s 2 >/dev/null
		echo "$state: status $? rtc $before -> $(cat /sys/class/rtc/rtc0/since_epoch)"
	done' >"$tmp/out" 2>"$tmp/err" || true
cat "$tmp/out"
for state in freeze mem; do
	name="rtcwake -m $state sleeps until the rtc alarm, 2 s ahead"
	if read -r before after < <(sed -n "s/^$state: status 0 rtc \([0-9]*\) -> \([0-9]*\)$/\1 \2/p" "$tmp/out") &&
		[ "$((after - before))" -ge 2 ]; then
		pass "$name"
	else
		cat "$tmp/out" "$tmp/err" >"$tmp/why"
		fail "$name" "$tmp/why"
	fi
done
