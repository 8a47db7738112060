# shellcheck shell=bash
# The UML backend (the run, test and bench flavours): the kernel is a host
# program, ./linux, that runs on the host's CPU.  scripts/host/lib/qemu.sh
# defines the same backend_ functions for x86_64 under QEMU; backend_load
# (scripts/host/lib/flavour.sh) sources one of the two for a flavour, and
# nothing else asks which.  The session (scripts/host/lib/session.sh)
# calls them for its SESSION_* session.
. "${BASH_SOURCE[0]%/*}/base.sh"

# shellcheck disable=SC2034 # read by backend_load
BACKEND_LOADED=uml

# Host signals the UML kernel uses for itself (arch/um/os-Linux/signal.c,
# counted with "handle SIG... nostop print pass" over a boot, a freeze and the guest
# suite): SIGALRM is its timer tick, SIGIO its interrupts (console, disks),
# SIGCHLD comes with every stop of the host processes that run the guest's
# processes (ptrace); SIGSEGV in kernel mode is its page fault (segv() in
# arch/um/kernel/trap.c: kernel mappings synced lazily, fixups), SIGWINCH
# the console's window size, SIGUSR1 the host's wake-up from a suspend to
# RAM.  gdb would stop at every SIGSEGV and SIGUSR1; all must reach UML.
# SIGVTALRM is not used by UML 6.12 (no handler).  SIGTRAP is gdb's own:
# never pass it, a SIGTRAP in kernel mode is fatal ("Kernel panic - not
# syncing: Kernel mode signal 5").  SIGBUS, SIGILL and SIGFPE keep gdb's
# default (stop).
UML_SIGNALS="SIGALRM SIGIO SIGCHLD SIGWINCH SIGSEGV SIGUSR1"

# UML backs guest memory with a file in the first of $TMPDIR, $TMP, $TEMP,
# else /dev/shm when it is tmpfs, else /tmp (arch/um/os-Linux/mem.c), and
# maps it executable.  On a noexec mount the boot dies early and quietly.
uml_tempdir() {
	local var
	for var in TMPDIR TMP TEMP; do
		if [ -n "${!var:-}" ]; then echo "${!var}"; return; fi
	done
	if [ "$(stat -f -c %T /dev/shm 2>/dev/null)" = tmpfs ]; then echo /dev/shm; else echo /tmp; fi
}

# check_tempdir: die, with the fix, unless UML can map memory from that dir.
check_tempdir() {
	local dir opts mnt
	dir=$(uml_tempdir)
	[ -d "$dir" ] && [ -w "$dir" ] ||
		die "UML's temp dir $dir does not exist or is not writable" \
			"point TMPDIR at a writable directory, e.g. TMPDIR=/tmp make ..."
	opts=$(findmnt -n -o OPTIONS -T "$dir")
	mnt=$(findmnt -n -o TARGET -T "$dir")
	case ",$opts," in
	*,noexec,*)
		die "UML maps guest memory executable from a file in $dir, but $mnt is mounted noexec; the kernel would die silently at boot" \
			"fix: use an exec-capable temp dir, e.g. TMPDIR=$BUILD/tmp (mkdir it first)," \
			"or remount: mount -o remount,exec $mnt" ;;
	esac
}

# backend_config_base: what a flavour's config fragments are merged onto
# (scripts/host/config.sh): UML's own defconfig.
backend_config_base() { echo arch/um/configs/x86_64_defconfig; }

# backend_links_top: true: ./linux and ./vmlinux at the top are to be the
# built kernel (link_top), a program to run (scripts/host/build.sh after
# building it, scripts/host/run.sh before booting it).
backend_links_top() { true; }

# backend_test_mem: the guest memory the host tests boot with
# (boot_job in tests/host/lib.sh).
backend_test_mem() { echo 512M; }

# backend_cmd JOB MEM INITRD INPUT GDB-STUB [KERNEL-ARG...]: set BACKEND_CMD
# to the command that boots SESSION_IMAGE as SESSION_UMID with guest job
# JOB (session_start): MEM of memory, INITRD, the console on stdio, its
# input too unless INPUT is 0 (the terminal's input is gdb's, the
# wrapper's).  UML has no gdb stub: GDB-STUB 1 dies, naming gdb on UML.
backend_cmd() {
	local job=$1 mem=$2 initrd=$3 input=$4 gdb_stub=$5 con=fd:0,fd:1
	shift 5
	[ "$gdb_stub" -eq 0 ] ||
		die "--gdb-stub is QEMU's: the $SESSION_FLAVOUR flavour is UML" "run gdb on UML itself: --wrap gdb (scripts/host/debug.sh)"
	[ "$input" -eq 1 ] || con=null,fd:1
	check_tempdir
	# shellcheck disable=SC2034 # for the caller
	BACKEND_CMD=("$SESSION_IMAGE" mem="$mem" initrd="$initrd" uml_dir="$SESSION_DIR" umid="$SESSION_UMID"
		con=null ssl=null con0="$con" job="$job" "$@")
}

# backend_halted LOG: never: UML's poweroff ends the program.
backend_halted() { return 1; }

# backend_kvm_broke LOG STARTED [STATUS]: never: UML runs on the host's
# CPU, with no accelerator to fail it; so backend_fallback_cmd is not
# called either.
backend_kvm_broke() { return 1; }
backend_fallback_cmd() { die "backend_fallback_cmd: UML has no accelerator to fall back from"; }

# backend_pid: the kernel's host pid, which UML writes in its uml_dir
# (under a wrapper too), known before its first console line.
backend_pid() { cat "$SESSION_DIR/$SESSION_UMID/pid" 2>/dev/null; }

# backend_mconsole: the path of the session's mconsole socket.
backend_mconsole() { echo "$SESSION_DIR/$SESSION_UMID/mconsole"; }

# backend_has_hostfs: true: a guest mounts host directories through
# hostfs (make run CMD=, scripts/host/lib/cmd-dir.sh).
backend_has_hostfs() { true; }

# backend_has_gdb_stub: false: gdb runs ./vmlinux itself (--wrap gdb), or
# attaches to its host process (backend_can_attach).
backend_has_gdb_stub() { false; }

# backend_can_attach: true: a running kernel is a host process that gdb
# can attach to (make debug ATTACH=PID).
backend_can_attach() { true; }

# backend_gdb_breakpoint: the kind of breakpoint gdb sets by default:
# software ones (scripts/host/debug.sh says why).
backend_gdb_breakpoint() { echo break; }

# backend_gdb_args: in BACKEND_GDB_ARGS, the options gdb needs for this
# kernel: UML's own signals pass through to it unseen.
# shellcheck disable=SC2034 # for the caller
backend_gdb_args() { BACKEND_GDB_ARGS=(-ex "handle $UML_SIGNALS nostop noprint pass"); }
