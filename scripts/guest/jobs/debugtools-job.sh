#!/bin/sh
# The tests of the debugging tools (tests/guest/debug_tools.c): /proc
# wchan and stack, sysrq t and w, a fork() that fails in dup_mmap().
# Booted by tests/host/47-debug-tools.sh, not by the test job: sysrq t
# floods the console, and a kernel without the fixes dies in them.
# shellcheck source=SCRIPTDIR/../job-lib.sh
. "$(dirname "$0")/../job-lib.sh"

# debug_tools=NAME (kernel command line) runs only that test.
only=$(cmdline_param debug_tools "")
job() { run_prog debug_tools /tests/debug_tools ${only:+-t "$only"}; }
ktap_job job
