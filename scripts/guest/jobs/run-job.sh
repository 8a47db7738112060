#!/bin/sh
# "make run": show who we are and what the freezer can be driven by.
echo "guest: kernel release: $(uname -r)"
echo "guest: uname -a: $(uname -a)"
echo "guest: /sys/power/state: $(cat /sys/power/state)"
echo "guest: /sys/power/pm_test: $(cat /sys/power/pm_test)"
echo "guest: powering off"
