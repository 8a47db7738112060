#!/bin/sh
# "make demo", the guest side: /tests/demo_workloads prints for people;
# the host (scripts/demo.sh) looks in through mconsole while it is frozen.
dmesg -n 1	# kernel messages would interleave with the narration
/tests/demo_workloads
