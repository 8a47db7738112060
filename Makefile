# Front door.  Every target is a script in scripts/host/ that also runs alone
# (its -h says how); the knobs below are its options.
#   make run            build the run flavour, boot ./linux: a guest shell on a
#                       terminal, else a scripted look at the guest; with
#                       CMD, that command in the guest
#   make test           run every test, building what they need (the test
#                       flavour), print totals
#   make check          the report scripts on saved logs (tests/check/), no kernel
#   make stress         the freezer stress only
#   make smp-test       the series on 4 vCPUs: x86_64 under QEMU, KCSAN + lockdep
#   make bench          todo vs classic freeze/thaw latency (build/bench/)
#   make trace          host syscalls of ./linux in and out of a freeze (strace)
#   make demo           narrated freeze/thaw of four workloads, both freezers,
#                       and their timeline picture
#   make debug          gdb on ./vmlinux, breakpoints on the todo freeze path
#   make race           two SMP races, 2005's code and today's, narrated by gdb
# Stages: deps source config build initramfs boot parse; patch queue: refresh
# check-patches check-candidates; clean (object dirs and logs, keeps
# build/src), distclean (all of build/).  Each works as the first command
# on a fresh clone (tests/host/11-first-command.sh).
# Knobs, each once, and the targets that take it:
#   FLAVOUR=F           the kernel: run, test, bench, smp or smp-gdb (every
#                       target; its default is in configs/flavours.mk)
#   TIMEOUT=S           the guest's time limit, in seconds (every target that
#                       boots one; a test's own is its "# timeout:" line,
#                       debug's 300 s with BATCH, none on a terminal)
#   CMD='...'           that command in the guest, in this directory through
#                       hostfs: its output, and its exit status (run debug)
#   CWD=DIR             the command's directory instead (run debug)
#   RW=1                the command's directory writable (run debug)
#   KERNEL_LOG=1        the kernel log on the console too (run)
#   PM_TEST=LEVEL       a freeze is a round trip to pm_test LEVEL, freezer;
#                       none: a real suspend (run)
#   TESTS='30-boot ...' only those tests of tests/host/ (test)
#   GUEST='PROG[:GLOB],...'  the guest suite alone, only those of its tests
#                       (test; docs/testing.md)
#   FREEZER=todo|classic  the guest suite alone, only that freezer's (test)
#   CYCLES=N            freeze/thaw cycles under churn (stress and smp-test
#                       1000; test 100)
#   HAMMER=N            SMP hammer cycles per freezer (smp-test, 200)
#   SIZES=10,100,...    the task counts (bench; docs/bench.md)
#   REPS=7              freezes per count and freezer (bench)
#   KINDS=spin,...      the task kinds (bench)
#   SPIN_MAX=100        the largest count with spinners (bench)
#   TIMELINE=KIND,N     one freeze of N tasks of KIND drawn too (bench)
#   STRACE=attach       strace attaches to ./linux after boot, not starting
#                       it (trace)
#   ATTACH=PID          gdb attaches to that running ./linux (debug)
#   BATCH=FILE          gdb runs that command file, no terminal (debug)
#   BREAKS='FN ...'     the breakpoints (debug)
#   BP=hbreak|break     hardware or software breakpoints (debug)
#   JOB=NAME            the guest job, scripts/guest/jobs/NAME-job.sh (boot,
#                       default run; debug, default debug)
#   RACE=walk|thaw|all  which race (race)
#   LOG=FILE            a saved console log (parse)
#   SMP_CPUS=4 SMP_ACCEL=kvm|tcg  vCPUs, and an accelerator forced: read
#                       from the environment by every x86_64 boot, at any
#                       depth (scripts/host/lib/qemu.sh, docs/smp.md)
# A knob has one word at every level: make's CYCLES is the script's --cycles
# (scripts/host/lib/opts.sh parses every script's options; none reads them
# from the environment), the test's $CYCLES and, where the guest reads it,
# cycles on the kernel command line; tests/check/71-knobs.sh checks it.
# Make decides what is stale; the scripts are its recipes and keep no
# freshness logic of their own.

JOB ?= run
CYCLES ?= 1000
S := scripts/host

# fragments.F, image.F and default.TARGET: the one flavour table.
include configs/flavours.mk
# The flavour of target $1: FLAVOUR= if given, else its default.
flavour = $(or $(FLAVOUR),$(default.$1))
# The kernel a flavour boots, and its config.
kernel = build/obj-$1/$(image.$1)
config_of = build/obj-$1/.config
FLAVOURS := $(patsubst fragments.%,%,$(filter fragments.%,$(.VARIABLES)))
$(if $(FLAVOUR),$(if $(fragments.$(FLAVOUR)),,$(error unknown FLAVOUR=$(FLAVOUR); use one of: $(FLAVOURS))))

# A failed recipe leaves no target that looks up to date (half a .config).
.DELETE_ON_ERROR:
# $$ in prerequisites: expanded only for the targets make considers, so
# the find below runs for the kernel being built, not for all four.
.SECONDEXPANSION:

.PHONY: FORCE run test check stress smp-test bench trace demo debug deps source config build initramfs boot parse refresh \
	check-patches check-candidates clean distclean help race

# ---- The build graph.  Every file below is remade only when older than
# what it is made from.

# The packages are checked again when scripts/host/deps.sh (its list) or the
# installed packages changed.
build/PACKAGES_OK: scripts/host/deps.sh $(wildcard /var/lib/dpkg/status)
	@$(S)/deps.sh
	@mkdir -p $(@D) && touch $@

# build/src with the series applied: again when a series file, a patch
# it lists, or the Debian source package changed.  The stamp lives in
# build/src/.git, so it goes with the tree; source.sh writes it, and
# refresh.sh after exporting build/src into the queues.  Packages first,
# but checking them again does not re-apply the series (order-only).
SERIES := kernel-patches/series arch-um-patches/series
PATCHES := $(shell awk '/^[^\#[:space:]]/ { d = FILENAME; sub(/series$$/, "", d); print d $$1 }' $(SERIES))
SOURCE := build/src/.git/SERIES_APPLIED
$(SOURCE): $(SERIES) $(wildcard $(PATCHES) /usr/src/linux-source-6.12.tar.xz \
		/var/lib/dpkg/info/linux-source-6.12.list) | build/PACKAGES_OK
	@$(S)/source.sh

# A flavour's .config: again when one of its fragments, the merge script or
# the source tree (the UML defconfig, Kconfig files) changed.
# (Static pattern rules: explicit targets, never deleted as intermediate.)
$(foreach f,$(FLAVOURS),$(call config_of,$f)): build/obj-%/.config: $$(addprefix configs/,$$(addsuffix .config,$$(fragments.$$*))) \
		scripts/host/config.sh $(SOURCE)
	@$(S)/config.sh --flavour $*

# The kernel's own make knows which files it compiles; this graph only
# says when to run it: when .config or the series changed, and when a file
# in build/src (edited or committed there by hand) is newer than the start
# of the last kernel make that succeeded (build.sh writes .kernel-make-start
# then), so an edit saved during a build is not lost.  Finding the first
# such file is one cheap find; a file the flavour does not compile costs
# one kernel make that changes nothing, not one per make run.  Directories
# do not count: merge_config.sh makes and removes temp files in build/src.
src_edited = $(if $(wildcard build/obj-$1/.kernel-make-start),$(shell find build/src -path build/src/.git \
	-prune -o ! -type d -newer build/obj-$1/.kernel-make-start -print -quit 2>/dev/null),FORCE)
KERNEL_DEPS = build/obj-%/.config $(SOURCE) $$(if $$(call src_edited,$$*),FORCE)
KERNELS := $(foreach f,$(FLAVOURS),$(call kernel,$f))
$(filter %/linux,$(KERNELS)): build/obj-%/linux: $(KERNEL_DEPS)
	@$(S)/build.sh --flavour $*
$(filter %/bzImage,$(KERNELS)): build/obj-%/arch/x86/boot/bzImage: $(KERNEL_DEPS)
	@$(S)/build.sh --flavour $*

# The guest's programs, jobs and busybox; the source tree gives
# gen_init_cpio and the selftest harness.
build/initramfs.cpio: $(wildcard tests/guest/*.c tests/guest/*.h scripts/guest/* scripts/guest/jobs/* /bin/busybox) \
		scripts/host/initramfs.sh $(SOURCE)
	@$(S)/initramfs.sh

FORCE:

# ---- Commands.

# The flavour's kernel and the initramfs, remade if stale; run.sh boots.
# CMD as typed, quoted for the shell: $(value) keeps a shell's $? or $1
# from make's expansion.
quoted_cmd = '$(subst ','\'',$(value CMD))'
run_cmd = $(if $(value CMD),-- $(quoted_cmd))
run: $(call kernel,$(call flavour,run)) build/initramfs.cpio
	@$(S)/run.sh --flavour $(call flavour,run) $(if $(RW),--rw) $(if $(KERNEL_LOG),--kernel-log) \
		$(if $(PM_TEST),--pm-test $(PM_TEST)) $(if $(CWD),--cwd '$(CWD)') $(if $(TIMEOUT),--timeout $(TIMEOUT)) \
		$(run_cmd)

# test.sh asks make for what the chosen tests need (each test's "# needs:"
# line), so that make test TESTS=10-patches builds no kernel.  (No "+":
# make -n would run the tests.)  GUEST='PROG[:GLOB],...' FREEZER=todo|classic:
# the guest suite alone, only those tests (docs/testing.md).  CYCLES only
# when given here: its default above is make stress's, not the 100 of
# make test's stress.
test:
	@$(S)/test.sh --flavour $(call flavour,test) $(if $(GUEST),--guest '$(GUEST)') \
		$(if $(FREEZER),--freezer $(FREEZER)) $(if $(TIMEOUT),--timeout $(TIMEOUT)) \
		$(if $(filter command line,$(origin CYCLES)),--cycles $(CYCLES)) $(if $(HAMMER),--hammer $(HAMMER)) \
		$(TESTS)

# The parsers and report scripts on the saved logs of tests/data/: needs
# the kernel source (KUnit's parser), not a kernel build.
check:
	@$(S)/test.sh --check

# Freezer stress with CYCLES freeze/thaw cycles (tests/host/50-stress.sh);
# builds what is needed as make test does.  TIMEOUT= overrides its limit.
stress:
	@$(S)/test.sh --flavour $(call flavour,stress) --cycles $(CYCLES) $(if $(TIMEOUT),--timeout $(TIMEOUT)) 50-stress

# The series on more than one CPU (tests/host/smp-full.sh): build the smp
# flavour (configs/smp.config: x86_64, KCSAN + lockdep) and boot it under
# qemu-system-x86_64 with 4 vCPUs (SMP_CPUS=), KVM if a probe guest runs
# under it, else multi-threaded TCG (SMP_ACCEL=kvm|tcg forces one; a guest
# KVM fails is booted again under TCG: docs/smp.md).  KUnit, task_todo, freeze_scenarios on both
# freezers, freeze_bugs, the SMP hammer (HAMMER=200 cycles per freezer)
# and CYCLES freeze/thaw cycles under churn spread over all CPUs.
# TIMEOUT= overrides its limit.
smp-test:
	@$(S)/test.sh --flavour $(call flavour,smp-test) --cycles $(CYCLES) $(if $(HAMMER),--hammer $(HAMMER)) \
		$(if $(TIMEOUT),--timeout $(TIMEOUT)) smp-full

# Freeze/thaw latency per task kind, todo vs classic in one boot of the
# bench flavour (scripts/host/bench.sh): SIZES=10,100,1000,4000 REPS=7, also
# KINDS=spin,pause,pipe,nanosleep,threads,uring,cgroup2 SPIN_MAX=100 TIMEOUT=seconds;
# TIMELINE=kind,N also draws one freeze per freezer of N tasks of that kind
# as a timeline (timeline.png, as make demo does).  Results in build/bench/.
bench: $(call kernel,$(call flavour,bench)) build/initramfs.cpio
	@$(S)/bench.sh --flavour $(call flavour,bench) $(if $(SIZES),--sizes $(SIZES)) $(if $(REPS),--reps $(REPS)) \
		$(if $(KINDS),--kinds $(KINDS)) $(if $(SPIN_MAX),--spin-max $(SPIN_MAX)) \
		$(if $(TIMELINE),--timeline $(TIMELINE)) $(if $(TIMEOUT),--timeout $(TIMEOUT))

# Host syscalls of the main UML process (strace) inside each freeze window,
# todo vs classic, and outside (scripts/host/trace.sh); no kernel build (the
# FLAVOUR kernel, default run, must exist), the initramfs is brought up to
# date.  STRACE=attach attaches after boot instead of starting ./linux under
# strace.  Results in build/trace/, with trace.dat: both freezes recorded
# by trace-cmd in the guest.  ATTACH= is make debug's pid, one meaning per
# name: refused here, before anything is built, naming STRACE=attach.
$(if $(and $(filter trace,$(MAKECMDGOALS)),$(ATTACH)),$(error make trace takes no ATTACH= (make debug's pid); \
	strace attaching after boot is: make trace STRACE=attach))
trace: build/initramfs.cpio
	@$(S)/trace.sh --flavour $(call flavour,trace) $(if $(STRACE),--strace $(STRACE)) \
		$(if $(TIMEOUT),--timeout $(TIMEOUT))

# Builds the bench flavour (FLAVOUR=bench unless given: the run kernel has
# no CONFIG_FREEZER_BENCH, which the timeline needs), boots, drives the
# freezes from the host with uml_mconsole and draws their timeline,
# build/demo/timeline.png; also build/demo/trace.dat of both freezes and
# sleepgraph.html of a suspend-to-idle (scripts/host/demo.sh).
demo: $(call kernel,$(call flavour,demo)) build/initramfs.cpio
	@$(S)/demo.sh --flavour $(call flavour,demo) $(if $(TIMEOUT),--timeout $(TIMEOUT))

# gdb on ./vmlinux of FLAVOUR (default test; no kernel build, the
# initramfs is brought up to date unless attaching) with the kernel's
# gdb scripts (lx-todo, lx-frozen among them), booting guest job "debug": one
# freeze through the todo freezer, breakpoints on todo_freeze_task,
# todo_freeze_self and todo_thaw_begin (scripts/host/debug.sh).  ATTACH=pid
# attaches to a running ./linux instead; BATCH=file runs that gdb
# command file non-interactively (TIMEOUT=seconds, default 300);
# BREAKS="fn ..." other breakpoints; BP=hbreak hardware ones; JOB=job;
# CMD='...' runs that in the guest instead of the one freeze (as make run
# CMD= does, the same "-- CMD" to the script, CWD= RW=), the breakpoints
# on its freezes.  FLAVOUR=smp: the
# x86_64 kernel under QEMU with its gdb stub, 4 vCPUs, hardware
# breakpoints; it runs smp-gdb (gdb.smp in configs/flavours.mk), built
# here first when stale.
gdb_flavour = $(gdb.$(call flavour,debug))
debug: $(if $(ATTACH),,build/initramfs.cpio) $(if $(gdb_flavour),$(call kernel,$(gdb_flavour)))
	@$(S)/debug.sh --flavour $(call flavour,debug) \
		$(if $(ATTACH),--attach $(ATTACH)) $(if $(BATCH),--batch $(BATCH)) \
		$(if $(BP),--bp $(BP)) $(if $(BREAKS),--breaks "$(BREAKS)") \
		$(if $(filter command line,$(origin JOB)),--job $(JOB)) $(if $(TIMEOUT),--timeout $(TIMEOUT)) \
		$(if $(RW),--rw) $(if $(CWD),--cwd '$(CWD)') $(run_cmd)

# The race lab (scripts/host/race.sh, docs/race.md): on the x86_64 kernel with
# debug info (smp-gdb, built here first when stale) under QEMU, two
# races of two CPUs, each against the 2005 (or first) design re-enacted and
# against today's code, narrated step by step from gdb.  RACE=walk|thaw|all
# (default all), TIMEOUT=seconds.
race: build/initramfs.cpio $(call kernel,smp-gdb)
	@$(S)/race.sh $(if $(RACE),--race $(RACE)) $(if $(TIMEOUT),--timeout $(TIMEOUT))

deps:
	@$(S)/deps.sh

source: $(SOURCE)

config: $(call config_of,$(call flavour,config))

build: $(call kernel,$(call flavour,build))

initramfs: build/initramfs.cpio

# Boot an already built kernel (no build): make boot FLAVOUR=test JOB=test
boot:
	@$(S)/boot.sh --flavour $(call flavour,boot) --job $(JOB) $(if $(TIMEOUT),--timeout $(TIMEOUT))

# Re-read a saved console log: make parse LOG=build/logs/guest-suite.log.
# Without LOG= it is refused here, naming it, not by the script's usage.
$(if $(and $(filter parse,$(MAKECMDGOALS)),$(if $(LOG),,no)),$(error make parse needs LOG=FILE, \
	a saved console log: make parse LOG=build/logs/guest-suite.log (written by make test)))
parse:
	@python3 $(S)/parse_console.py $(LOG)

refresh:
	@$(S)/refresh.sh

check-patches: $(SOURCE)
	@$(S)/check-patches.sh

# The upstream candidates alone (no test, teaching or bench patch) apply,
# build with the run config and boot for one freeze per freezer.
check-candidates: $(SOURCE) build/initramfs.cpio
	@$(S)/check-candidates.sh $(if $(TIMEOUT),--timeout $(TIMEOUT))

# Remove the object dirs and logs; keep build/src (and its unexported work).
clean:
	rm -rf build/obj-* build/logs build/initramfs build/initramfs.cpio build/PACKAGES_OK linux vmlinux

# Remove everything under build/, including build/src.
distclean:
	rm -rf build linux vmlinux

help:
	@sed -n '/^$$/q;p' Makefile
