# The flavours, in one table that the Makefile includes and scripts/host/lib/flavour.sh
# reads (flavour_fragments, flavour_image, default_flavour): keep to
# "KEY := VALUE" lines.
#
# fragments.F: the configs/ fragments flavour F merges.  run, test and bench
# are UML; smp and smp-* are x86_64, booted under QEMU: smp by make
# smp-test, smp-debug (smp with debug info and gdb scripts) by make debug
# FLAVOUR=smp, built only when asked.
fragments.run := base
fragments.test := base debug
fragments.bench := base bench
fragments.smp := smp
fragments.smp-debug := smp smp-debug

# image.F: the file flavour F boots, in build/obj-F.
image.run := linux
image.test := linux
image.bench := linux
image.smp := arch/x86/boot/bzImage
image.smp-debug := arch/x86/boot/bzImage

# default.CMD: the flavour "make CMD" and scripts/CMD.sh use when neither
# FLAVOUR= nor --flavour names one.  test is the debug kernel (KASAN,
# lockdep); bench has the tracepoints the demo draws and none of the debug
# overhead; debug wants the test kernel's gdb scripts.
default.run := run
default.boot := run
default.trace := run
default.build := run
default.config := run
default.test := test
default.stress := test
default.debug := test
default.bench := bench
default.demo := bench
default.smp-test := smp

# debug.F: the flavour "make debug FLAVOUR=F" runs under gdb instead of F,
# which has no debug info (the same kernel with it).
debug.smp := smp-debug
