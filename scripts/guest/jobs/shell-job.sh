#!/bin/sh
# An interactive shell on the console (make run on a terminal, or ./linux
# job=shell by hand).  Leaving the shell powers the guest off.
echo "guest: $(uname -r) shell; 'exit' powers off"
echo "guest: to freeze user space for pm_test_delay (5 s): echo freezer > /sys/power/pm_test; echo freeze > /sys/power/state"
setsid cttyhack sh -l
exit 0
