# shellcheck shell=bash
# Where UML maps its guest memory from, checked before a boot
# (session_start).
. "${BASH_SOURCE[0]%/*}/base.sh"

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
