#!/usr/bin/env bash
# Boot the test kernel with the guest test job: KUnit runs at boot, then
# every program in tests/guest/.  One result per KUnit case and per TAP line,
# plus a check that the kernel log has no splats.
. "$(dirname "$0")/lib.sh"

log=$LOGS/guest-suite.log
"$TOP/scripts/boot.sh" --flavour "$TEST_FLAVOUR" --job test --timeout "${GUEST_TIMEOUT:-900}" \
	--show none --log "$log" >"$log.runner" 2>&1 && rc=0 || rc=$?
python3 "$TOP/scripts/parse_console.py" "$log"

# A KUnit suite the config builds must have reported, or its results are
# silently missing from the counts.  Pairs of config option and suite.
config=$(obj_dir "$TEST_FLAVOUR")/.config
for pair in TASK_TODO_KUNIT_TEST:task_todo TODO_FREEZER_KUNIT_TEST:todo_freezer \
	MACCESS_KUNIT_TEST:maccess; do
	option=${pair%%:*} suite=${pair#*:}
	grep -q "^CONFIG_$option=y" "$config" || continue
	if grep -Eq "^ *ok [0-9]+ $suite\$" "$log"; then
		pass "kunit: suite $suite ran and passed"
	else
		fail "kunit: suite $suite ran and passed" "$log"
	fi
done
case $rc in
0 | 1) ;; # the guest ran its programs; their results are above
*) fail "guest suite: boot finished (runner exit $rc)" "$log.runner" ;;
esac
