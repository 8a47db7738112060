#!/bin/sh
# The freeze tests that tell a frozen task by its pause, booted with a low
# lpj= so that pm_test_delay's busy wait lasts a fraction of its nominal
# seconds, as after a boot-time calibration on a busy host.  They compare
# pauses with the window the kernel measured, so they must still pass.
# Booted by tests/host/42-short-delay.sh.
# shellcheck source=SCRIPTDIR/../job-lib.sh
. "$(dirname "$0")/../job-lib.sh"

grep -o 'lpj=[0-9]*' /proc/cmdline | sed 's/^/# booted with /'
job() {
	run_prog freeze_roundtrip.short_delay /tests/freeze_roundtrip
	run_prog freezer_select.short_delay /tests/freezer_select
}
ktap_job job
