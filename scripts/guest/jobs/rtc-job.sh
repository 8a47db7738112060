#!/bin/sh
# Five real suspends-to-idle in a row, each woken by the RTC alarm, and
# alarms with the system clock off the RTC's, with
# the todo freezer and then with the classic one, all in this one boot
# (tests/guest/suspend_rtc.c).  Booted by tests/host/45-suspend-rtc.sh.
# shellcheck source=SCRIPTDIR/../job-lib.sh
. "$(dirname "$0")/../job-lib.sh"

job() {
	run_prog suspend_rtc /tests/suspend_rtc
}
ktap_job job
