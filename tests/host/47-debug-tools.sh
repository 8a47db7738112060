#!/usr/bin/env bash
# /proc/<pid>/wchan and stack, sysrq t and w from /proc/sysrq-trigger, and a
# fork() that fails in dup_mmap(), on the KASAN test kernel, with a task
# frozen and not (tests/guest/debug_tools.c, guest job debugtools).
# needs: build initramfs
. "$(dirname "$0")/lib.sh"

# log_buf_len: the whole of a sysrq t dump stays in the buffer dmesg reads.
run_guest_job "debug tools" debugtools 300 "$LOGS/debug-tools.log" log_buf_len=4M
