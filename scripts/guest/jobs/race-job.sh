#!/bin/sh
# "make race": the race lab on two CPUs (tests/guest/race_lab.c), each race
# once against the 2005 (or first) design, re-enacted, and once against
# today's code; scripts/gdb/race.py narrates every step from gdb.
# race= on the kernel command line picks the races: walk (the unlocked
# list walk of 2005 against a cancel on the other CPU), thaw (the frozen
# wait's lost wake-up at the thaw), or all (default).
# shellcheck source=SCRIPTDIR/../job-lib.sh
. "$(dirname "$0")/../job-lib.sh"

race=$(cmdline_param race all)
case $race in
walk | thaw | all) ;;
*) echo "guest: race: unknown race=$race (walk, thaw or all)"; exit 2 ;;
esac
echo "# race lab: race=$race, $(grep -c ^processor /proc/cpuinfo) CPUs online"

# A freeze held in gdb must not time out (default 20 s) meanwhile.
echo 3600000 >/sys/power/pm_freeze_timeout
# The use-after-free report's allocation and free stacks are KERN_INFO.
echo 7 >/proc/sys/kernel/printk

job() {
	case $race in walk | all)
		run_prog race.walk.2005 /tests/race_lab walk 2005
		run_prog race.walk.today /tests/race_lab walk today ;;
	esac
	case $race in thaw | all)
		run_prog race.thaw.sb /tests/race_lab thaw sb
		run_prog race.thaw.fixed /tests/race_lab thaw fixed ;;
	esac
	echo none >/sys/power/pm_test
}
ktap_job job
