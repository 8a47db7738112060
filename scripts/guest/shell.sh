#!/bin/sh
# An interactive shell on the console, for running ./linux by hand.
# Leaving the shell powers the guest off.
echo "guest: $(uname -r) shell; 'exit' powers off"
setsid cttyhack sh -l
exit 0
