#!/usr/bin/env bash
# cmd_output (scripts/host/lib/cmd-output.sh), what "make run CMD=" prints
# of guest job "cmd", on a saved console log of one: the command's output,
# exactly, and its exit status (3); a log cut off inside the output, and
# the log of another job, give status 125, not the command's.
. "$(dirname "$0")/../host/lib.sh"
. "$(dirname "$0")/../../scripts/host/lib/cmd-output.sh"

data=$TOP/tests/data
tmp=$(scratch)
# What the command (tests/data/README.md) printed in the guest.
printf '%s\n' 'in /tmp/layout-cmd: err' out show.sh '  two  words ' '' \
	'ls: /no/such/file: No such file or directory' 'freeze: 0' >"$tmp/want"

cmd_output --saved "$data/run-cmd.log" >"$tmp/out" && rc=0 || rc=$?
name="check: run cmd: the saved log gives the command's output, exactly, and its exit status"
if [ "$rc" -eq 3 ] && diff -u "$tmp/want" "$tmp/out" >"$tmp/diff"; then
	pass "$name"
else
	echo "# status $rc, want 3"
	fail "$name" "$tmp/diff"
fi

# Cut after the command's fourth line: a crash or a timeout inside it.
begin=$(grep -n '^TODO-CMD: begin$' "$data/run-cmd.log" | cut -d: -f1)
head -n "$((begin + 4))" "$data/run-cmd.log" >"$tmp/cut.log"
cmd_output --saved "$tmp/cut.log" >"$tmp/cut" && rc=0 || rc=$?
name="check: run cmd: a log cut off inside the output is status 125, with the lines it has"
if [ "$rc" -eq 125 ] && diff -u <(head -n 4 "$tmp/want") "$tmp/cut" >"$tmp/diff"; then
	pass "$name"
else
	echo "# status $rc, want 125"
	fail "$name" "$tmp/diff"
fi

xz -dc "$data/guest-suite.log.xz" >"$tmp/other.log"
cmd_output --saved "$tmp/other.log" >"$tmp/other" && rc=0 || rc=$?
name="check: run cmd: the log of another job is status 125, with no output"
if [ "$rc" -eq 125 ] && [ ! -s "$tmp/other" ]; then
	pass "$name"
else
	echo "# status $rc, want 125; output: $(wc -l <"$tmp/other") lines"
	fail "$name" "$tmp/other"
fi
rm -rf "$tmp"
