# shellcheck shell=bash
# The flavours: the table in configs/flavours.mk (the Makefile includes it
# too), what each builds (arch, config fragments, image) and where, and
# which backend boots it (backend_load).
. "${BASH_SOURCE[0]%/*}/base.sh"

# flavour_table KEY: its VALUE, empty when the key is not there.
flavour_table() { sed -n "s/^$1 *:= *//p" "$TOP/configs/flavours.mk"; }

# The config fragments of a flavour; dies on an unknown flavour.
flavour_fragments() {
	local frags
	frags=$(flavour_table "fragments.$1")
	[ -n "$frags" ] || die "unknown flavour '$1'" \
		"use one of: $(sed -n 's/^fragments\.\([^ ]*\) .*/\1/p' "$TOP/configs/flavours.mk" | paste -sd' ')"
	echo "$frags"
}

# default_flavour CMD: the flavour of "make CMD" and scripts/host/CMD.sh when
# none is named.
default_flavour() { flavour_table "default.$1"; }

# The kernel's ARCH= for a flavour: smp and its variants (smp-gdb) are
# x86_64 kernels for QEMU.
flavour_arch() {
	case $1 in
	smp | smp-*) echo x86_64 ;;
	*) echo um ;;
	esac
}

# backend_load FLAVOUR: source the backend of FLAVOUR's arch, the one place
# that knows UML from QEMU: scripts/host/lib/uml.sh or qemu.sh, which
# define the same backend_ functions (as kunit.py's
# LinuxSourceTreeOperationsUml and LinuxSourceTreeOperationsQemu are one
# interface).  Nothing is sourced again when that backend is loaded.
BACKEND_LOADED="" # uml or qemu; not taken from the environment
backend_load() {
	case $(flavour_arch "$1") in
	um) [ "$BACKEND_LOADED" = uml ] || . "${BASH_SOURCE[0]%/*}/uml.sh" ;;
	*) [ "$BACKEND_LOADED" = qemu ] || . "${BASH_SOURCE[0]%/*}/qemu.sh" ;;
	esac
}

# The file a flavour boots, relative to its object dir.
flavour_image() { flavour_table "image.$1"; }

obj_dir() { echo "${OBJ_DIR:-$BUILD/obj-$1}"; }

# link_top FLAVOUR: ./linux and ./vmlinux are that UML kernel (build.sh
# after building it, run.sh before booting it, when backend_links_top).
link_top() {
	local obj
	obj=$(obj_dir "$1")
	ln -sfn "${obj#"$TOP"/}/linux" "$TOP/linux"
	ln -sfn "${obj#"$TOP"/}/vmlinux" "$TOP/vmlinux"
}
