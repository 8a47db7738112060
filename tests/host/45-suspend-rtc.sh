#!/usr/bin/env bash
# Real suspends-to-idle woken by the UML RTC alarm: five in a row with each
# freezer, all in one boot (tests/guest/suspend_rtc.c, guest job rtc).
# KUnit is off in this boot: the guest suite reports it once.
# needs: build initramfs
. "$(dirname "$0")/lib.sh"

run_guest_job "suspend-to-idle woken by the rtc" rtc 240 "$LOGS/suspend-rtc.log"
