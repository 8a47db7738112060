#!/usr/bin/env bash
# Install the Debian packages the build and tests need, when missing.
# As root it runs apt-get; otherwise it prints the exact command and stops.
. "$(dirname "$0")/lib/base.sh"
help_if_asked "$@"

PACKAGES=(
	linux-source-6.12 # the kernel source we patch
	gcc make libc6-dev # compiler, static libc for guest programs
	flex bison bc perl python3 # kernel build and kunit.py
	git xz-utils # build/src tree, unpacking the source
	busybox-static # the guest's userland
	python3-ply python3-git # checkpatch's SPDX licence check (spdxcheck.py)
	ccache # incremental rebuilds across object dirs
	procps util-linux # pgrep, setsid, findmnt for the boot runner
	strace # make trace: host syscalls of ./linux
	trace-cmd # the trace.dat of make trace, make demo and make test, recorded in the guest
	gdb # make debug: gdb with Python, for the kernel's lx- commands
	uml-utilities # uml_mconsole: the mconsole commands from the host
	dwarves gnuplot-nox # make bench: pahole on vmlinux, the latency plot
	qemu-system-x86 # make smp-test: the x86_64 kernel on 4 vCPUs
	libelf-dev # objtool, which the x86_64 kernel of make smp-test needs
	sparse # make check-patches: sparse (C=2) on the files the series touches
)

missing=()
for pkg in "${PACKAGES[@]}"; do
	dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if [ ${#missing[@]} -eq 0 ]; then
	info "all ${#PACKAGES[@]} required Debian packages are installed"
	exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
	die "missing Debian packages: ${missing[*]}" \
		"install them as root, then run make again:" \
		"apt-get update && apt-get install -y ${missing[*]}"
fi
stage "installing missing Debian packages: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
run_logged "$LOGS/apt-update.log" apt-get update ||
	die "apt-get update failed" "check the network and /etc/apt/sources.list"
run_logged "$LOGS/apt-install.log" apt-get install -y --no-install-recommends "${missing[@]}" ||
	die "apt-get install failed" "see $LOGS/apt-install.log"
