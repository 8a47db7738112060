#!/usr/bin/env bash
# A guest result's status on its whole path, with no kernel: a guest job of
# stand-in programs, run by busybox sh with scripts/guest/job-lib.sh as the
# guest runs it; its console read as tests/host/40-guest-suite.sh reads
# one (console_results), recorded as scripts/host/test.sh records a test
# (ktap_subtest), and counted once (scripts/host/ktap_totals.py).  run_prog
# closes each program's subtest from its exit status as kselftest's runner
# does (0 ok, 4 skipped, else not ok), so a program killed mid-run is a
# failure, and its missing results too; a shell function it runs keeps its
# own pipelines' status (no pipefail there).
. "$(dirname "$0")/../host/lib.sh"

busybox=${BUSYBOX:-/bin/busybox}
tmp=$(scratch)
host=host/check

if [ ! -x "$busybox" ]; then
	fail "check: result path: busybox at $busybox (run scripts/host/deps.sh: package busybox-static)"
	exit 0
fi

# The job: what each stand-in prints and how it ends.
cat >"$tmp/job.sh" <<'EOF'
. "$JOB_LIB"
passes() { printf 'TAP version 13\n1..2\nok 1 one\nok 2 two\n'; }
fails() { printf 'TAP version 13\n1..2\nok 1 one\nnot ok 2 two\n'; return 1; }
skips() { printf 'TAP version 13\n1..0 # SKIP no knob\n'; return 4; }
dies() { sh -c 'printf "TAP version 13\n1..3\nok 1 one\n"; kill -KILL $$'; }
# yes dies of SIGPIPE: with pipefail this pipeline would fail.
pipes() { printf '1..1\n'; yes | head -n 1 >/dev/null && echo "ok 1 a_pipeline_s_status_is_its_last_command_s"; }
job() {
	for prog in passes fails skips dies pipes; do run_prog "$prog" "$prog"; done
}
ktap_job job
EOF
{
	echo "TODO-INIT: started, job 'check'"
	JOB_LIB=$TOP/scripts/guest/job-lib.sh "$busybox" sh "$tmp/job.sh" 2>&1 && rc=0 || rc=$?
	echo "TODO-EXIT: $rc"
} >"$tmp/console.log"
as_own_test console_results "guest job" "$tmp/console.log" >"$tmp/out"
{ printf 'KTAP version 1\n1..1\n'; ktap_subtest 1 "$host" "$tmp/out"; } >"$tmp/run.ktap"
python3 "$TOP/scripts/host/ktap_totals.py" "$tmp/run.ktap" >"$tmp/totals" || true
cat "$tmp/console.log" "$tmp/totals" >"$tmp/all"

expect "check: result path: run_prog closes each program's subtest from its exit status, as kselftest's runner" \
	"$tmp/console.log" '^ok 1 passes$' '^not ok 2 fails # exit status 1$' '^ok 3 skips # SKIP$' \
	'^not ok 4 dies # exit status 137$' '^ok 5 pipes$' '^    ok 1 a_pipeline_s_status_is_its_last_command_s$'

name="check: result path: the failures by name and the totals come from the document alone"
want=("$host > guest job > fails > two" "$host > guest job > dies: 2 of 3 results missing (a crash or a timeout)")
if diff <(printf '# failed: %s\n' "${want[@]}") <(grep '^# failed: ' "$tmp/totals") >"$tmp/diff" &&
	grep -qx '6 passed, 3 failed, 1 skipped' "$tmp/totals"; then
	expect "$name" "$tmp/run.ktap" '^    not ok 1 - guest job$' "^not ok 1 $host\$"
else
	cat "$tmp/all" >>"$tmp/diff"
	fail "$name" "$tmp/diff"
fi
rm -rf "$tmp"
