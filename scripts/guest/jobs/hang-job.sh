#!/bin/sh
# A guest that never finishes, so tests can check the host-side timeout.
echo "guest: hanging on purpose"
while :; do sleep 1; done
