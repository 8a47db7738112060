#!/usr/bin/env bash
# Real suspends woken by the UML RTC alarm: five to idle and two to RAM with each
# freezer, and fifty short ones to idle through the cpuidle s2idle state, all
# in one boot (tests/guest/suspend_rtc.c, guest job rtc); then util-linux
# rtcwake -m freeze and -m mem from the host in a chroot.
# KUnit is off in this boot: the guest suite reports it once.
# needs: build initramfs
. "$(dirname "$0")/lib.sh"

run_guest_job "suspend-to-idle woken by the rtc" rtc 420 "$LOGS/suspend-rtc.log"

# util-linux rtcwake, a real program, from the host's / in a chroot (hostfs,
# read-only; the guest's own /dev, /sys and /proc over the host's, so it
# arms the guest's RTC), with each freezer: each state must sleep until the
# RTC alarm, RTCWAKE_S RTC seconds ahead, with timekeeping suspended:
# CLOCK_MONOTONIC stands still while CLOCK_BOOTTIME counts the sleep (the
# host's python3 reads both).  UML 6.12's "mem" came back at once; its
# "freeze" slept with the tick going, so CLOCK_MONOTONIC counted the sleep,
# as it still does with cpuidle.off=1 (no idle driver), which the last
# boot shows: without UML's cpuidle driver this check fails.
if ! command -v rtcwake >/dev/null; then
	skip "rtcwake -m freeze and -m mem sleep until the rtc alarm" "no rtcwake on the host (util-linux)"
	exit 0
fi
RTCWAKE_S=3
tmp=$(scratch)

# rtcwake_boot OUT "FREEZER..." "STATE..." [KERNEL-ARG...]: one boot that runs
# rtcwake -m STATE for each freezer and state; a line per run in OUT:
# "FREEZER STATE: status S rtc R0 -> R1 clocks MONO0 BOOT0 -> MONO1 BOOT1".
rtcwake_boot() {
	local out=$1 freezers=$2 states=$3 kargs=() a
	shift 3
	for a; do kargs+=(--kernel-arg "$a"); done
	"$TOP/scripts/host/run.sh" --flavour test --pm-test none --timeout 120 "${kargs[@]}" -- '
	root=/run/host-root
	mkdir -p $root && mount -t hostfs -o ro,/ none $root &&
	mount -t devtmpfs none $root/dev && mount -t sysfs none $root/sys &&
	mount -t proc none $root/proc || exit 125
	clocks() { chroot $root python3 -c "import time; print(time.clock_gettime_ns(time.CLOCK_MONOTONIC), time.clock_gettime_ns(time.CLOCK_BOOTTIME))"; }
	for freezer in '"$freezers"'; do
		echo $freezer >/sys/power/freezer || exit 125
		for state in '"$states"'; do
			before=$(cat /sys/class/rtc/rtc0/since_epoch) c0=$(clocks)
			chroot $root rtcwake -m $state -s '"$RTCWAKE_S"' >/dev/null
			status=$?
			echo "$freezer $state: status $status rtc $before -> $(cat /sys/class/rtc/rtc0/since_epoch) clocks $c0 -> $(clocks)"
		done
	done' >"$out" 2>"$out.err" || true
	cat "$out"
}

# slept FILE FREEZER STATE: "RTC-SECONDS SUSPENDED-MS" of that run in FILE
# (suspended: the CLOCK_BOOTTIME that CLOCK_MONOTONIC did not count), with
# a comment line; "0 0" if it did not run or failed.
slept() {
	local pat="^$2 $3: status 0 rtc \([0-9]*\) -> \([0-9]*\) clocks \([0-9]*\) \([0-9]*\) -> \([0-9]*\) \([0-9]*\)$"
	local rtc0 rtc1 mono0 boot0 mono1 boot1 rtc_s suspended_ms
	if read -r rtc0 rtc1 mono0 boot0 mono1 boot1 < <(sed -n "s/$pat/\1 \2 \3 \4 \5 \6/p" "$1"); then
		rtc_s=$((rtc1 - rtc0)) suspended_ms=$(((boot1 - boot0 - (mono1 - mono0)) / 1000000))
		echo "# $2 $3: rtc +$rtc_s s, suspended $suspended_ms ms (CLOCK_BOOTTIME - CLOCK_MONOTONIC)" >&2
		echo "$rtc_s $suspended_ms"
	else
		echo "0 0"
	fi
}

rtcwake_boot "$tmp/out" "todo classic" "freeze mem"
for freezer in todo classic; do
	for state in freeze mem; do
		name="rtcwake -m $state with the $freezer freezer sleeps until the rtc alarm, $RTCWAKE_S s ahead, with CLOCK_MONOTONIC stopped"
		read -r rtc_s slept_ms < <(slept "$tmp/out" $freezer $state)
		if [ "$rtc_s" -ge "$RTCWAKE_S" ] && [ "$slept_ms" -ge $(((RTCWAKE_S - 1) * 1000)) ]; then
			pass "$name"
		else
			cat "$tmp/out" "$tmp/out.err" >"$tmp/why"
			fail "$name" "$tmp/why"
		fi
	done
done

rtcwake_boot "$tmp/off" todo freeze cpuidle.off=1
name="rtcwake -m freeze with cpuidle.off=1 (no idle driver): CLOCK_MONOTONIC counts the sleep, so the check above can fail"
read -r rtc_s slept_ms < <(slept "$tmp/off" todo freeze)
if [ "$rtc_s" -ge "$RTCWAKE_S" ] && [ "$slept_ms" -lt 1000 ]; then
	pass "$name"
else
	cat "$tmp/off" "$tmp/off.err" >"$tmp/why"
	fail "$name" "$tmp/why"
fi
