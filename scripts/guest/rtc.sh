#!/bin/sh
# One real suspend-to-idle woken by the RTC alarm (tests/guest/suspend_rtc.c),
# with the freezer chosen by the freezer= boot parameter.  One per boot:
# see suspend_rtc.c.  Booted by tests/host/45-suspend-rtc.sh.
# shellcheck source=SCRIPTDIR/lib.sh
. "$(dirname "$0")/lib.sh"

run_prog "suspend_rtc.$(cmdline_param freezer todo)" /tests/suspend_rtc
exit "$rc"
