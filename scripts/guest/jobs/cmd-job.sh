#!/bin/sh
# "make run CMD=...": run a host command in the guest.  The host's session
# directory (cmd_dir= on the kernel command line) holds the command
# (cmd.sh), the host directory to run it in (cwd) and whether that is
# writable (rw); this job mounts both through hostfs, the directory at the
# same path as on the host, runs the command there with the console as its
# terminal, leaves the kernel log in cmd_dir/dmesg and exits with the
# command's status: the init's exit line ends the output and gives the
# status (docs/console.md).  Freezes are round trips (pm_test=freezer) unless
# pm_test= names another level ("none": a real suspend, which needs a
# wake-up source such as rtcwake).
# shellcheck source=SCRIPTDIR/../job-lib.sh
. "$(dirname "$0")/../job-lib.sh"

dir=$(cmdline_param cmd_dir "")
pm_test=$(cmdline_param pm_test freezer)
host=/run/host-cmd
mkdir -p "$host"
mount -t hostfs -o "$dir" none "$host" || { echo "cmd: cannot mount $dir from the host (hostfs)"; exit 125; }
cwd=$(cat "$host/cwd")
opts=ro
[ "$(cat "$host/rw")" = 1 ] && opts=rw
mkdir -p "$cwd"
mount -t hostfs -o "$opts,$cwd" none "$cwd" || { echo "cmd: cannot mount $cwd from the host (hostfs)"; exit 125; }
echo "$pm_test" >/sys/power/pm_test || exit 125
cd "$cwd" || exit 125
echo "TODO-CMD: begin"
sh "$host/cmd.sh" </dev/null
status=$?
# For make debug, whose own exit status is gdb's and whose console is a
# terminal, not a log to read.
echo "$status" >"$host/status"
cd /
dmesg >"$host/dmesg"
umount "$cwd"
umount "$host"
exit "$status"
