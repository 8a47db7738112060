# The flavours, in one table that the Makefile includes and scripts/host/lib/flavour.sh
# reads (flavour_fragments, flavour_image, default_flavour): keep to
# "KEY := VALUE" lines.
#
# fragments.F: the configs/ fragments flavour F merges; configs/F.config is
# what F adds (base.config is every UML flavour's).  run, test and bench
# are UML; smp and smp-* are x86_64, booted under QEMU: smp by make
# smp-test, smp-gdb (smp with debug info and gdb scripts) by make debug
# FLAVOUR=smp and make race, built only when asked.
fragments.run := base
fragments.test := base test
fragments.bench := base bench
fragments.smp := smp
fragments.smp-gdb := smp smp-gdb

# image.F: the file flavour F boots, in build/obj-F.
image.run := linux
image.test := linux
image.bench := linux
image.smp := arch/x86/boot/bzImage
image.smp-gdb := arch/x86/boot/bzImage

# default.CMD: the flavour "make CMD" and scripts/CMD.sh use when neither
# FLAVOUR= nor --flavour names one.  test is the kernel with the checkers
# (KASAN, lockdep, kmemleak) and the tests' knobs; bench has the
# tracepoints the demo draws and none of the checkers' overhead; debug
# runs the test kernel (every UML flavour has debug info and gdb scripts:
# configs/base.config).
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

# gdb.F: the flavour "make debug FLAVOUR=F" runs under gdb instead of F,
# which has no debug info (the same kernel with it).
gdb.smp := smp-gdb
