# Front door.  Every target is a script in scripts/ that also runs alone.
#   make run            build the run flavour, boot ./linux, show the guest
#   make test           build the debug flavour, run every test, print totals
#   make stress         the same for the freezer stress only, CYCLES=1000
# Stages: deps source config build initramfs boot parse; patch queue: refresh
# check-patches.  FLAVOUR=run|test|bench picks the config fragments.

FLAVOUR ?= run
JOB ?= run
CYCLES ?= 1000
S := scripts

.PHONY: run test stress deps source config build initramfs boot parse refresh \
	check-patches clean distclean help

run:
	@$(S)/run.sh

test:
	@$(S)/test.sh $(TESTS)

# Freezer stress with CYCLES freeze/thaw cycles (tests/host/50-stress.sh);
# builds what is needed as make test does.  TIMEOUT= overrides its limit.
stress:
	@STRESS_CYCLES=$(CYCLES) $(if $(TIMEOUT),STRESS_TIMEOUT=$(TIMEOUT)) $(S)/test.sh 50-stress

deps:
	@$(S)/deps.sh

source: deps
	@$(S)/source.sh

config: source
	@$(S)/config.sh $(FLAVOUR)

build: source
	@$(S)/build.sh $(FLAVOUR)

initramfs: source
	@$(S)/initramfs.sh

# Boot an already built kernel: make boot FLAVOUR=test JOB=test
boot:
	@$(S)/boot.sh --flavour $(FLAVOUR) --job $(JOB) $(if $(TIMEOUT),--timeout $(TIMEOUT))

# Re-read a saved console log: make parse LOG=build/logs/guest-suite.log
parse:
	@python3 $(S)/parse_console.py $(LOG)

refresh:
	@$(S)/refresh.sh

check-patches: source
	@$(S)/check-patches.sh

# Remove the object dirs and logs; keep build/src (and its unexported work).
clean:
	rm -rf build/obj-* build/logs build/initramfs build/initramfs.cpio linux vmlinux

# Remove everything under build/, including build/src.
distclean:
	rm -rf build linux vmlinux

help:
	@sed -n '1,6p' Makefile
