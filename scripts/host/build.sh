#!/usr/bin/env bash
# Build the kernel for one flavour in build/obj-FLAVOUR (kept between
# builds, so rebuilds are incremental; ccache is used when installed).  For
# the UML flavours, point ./linux and ./vmlinux at the result; the smp
# flavour is an x86_64 bzImage for QEMU (make smp-test) and leaves them.
# It runs the kernel's make on the existing .config (make config, or make
# build, which configures first when the fragments changed).
# Usage: scripts/host/build.sh [--flavour run|test|bench|smp]
. "$(dirname "$0")/lib/opts.sh"
. "$(dirname "$0")/lib/kernel-build.sh"
help_if_asked "$@"

STEP_RE='^  (CC|AS|LD|AR|HOSTCC|GEN)'

# Print one progress line every $2 seconds while the build log $1 grows;
# the largest step count seen before ($1.steps) says how far a full build is.
progress() {
	local log=$1 every=$2 start=$SECONDS n last total=""
	[ -s "$log.steps" ] && total=" (a full build is ~$(cat "$log.steps"))"
	while sleep "$every"; do
		n=$(grep -cE "$STEP_RE" "$log" 2>/dev/null || true)
		last=$(grep -E '^  [A-Z]' "$log" 2>/dev/null | tail -n 1 | sed 's/^ *//' || true)
		info "  build $flavour: $n steps$total, $((SECONDS - start)) s; now: ${last:-starting}"
	done
}

# relative_links DIR: turn the absolute symlinks in DIR that point into
# build/ into relative ones.  An O= build links "source", vmlinux-gdb.py
# and scripts/gdb/linux/*.py to the source tree by absolute path (and makes
# them anew at each make), so a copy of build/ (cp -a) would still read the
# gdb scripts of the original tree, or none once it is gone.
relative_links() {
	local dir=$1 root link target
	root=$(cd "$BUILD" && pwd -P)
	case $(cd "$dir" && pwd -P) in "$root"/*) ;; *) return 0 ;; esac
	while IFS= read -r -d '' link; do
		target=$(realpath -m "$link")
		case $target in "$root"/*) ;; *) continue ;; esac
		ln -sfn "$(realpath -m --relative-to="$(dirname "$link")" "$target")" "$link"
	done < <(find "$dir" -type l -lname '/*' -print0)
}

main() {
	local obj log jobs pid rc=0 start n arch image flavour hints
	flavour=$(default_flavour build)
	opts_parse 'flavour:flavour' "$@"
	obj=$(obj_dir "$flavour")
	arch=$(flavour_arch "$flavour")
	backend_load "$flavour"
	image=$obj/$(flavour_image "$flavour")
	hold_lock "$obj.lock" "${obj#"$TOP"/}"
	[ -f "$obj/.config" ] || die "no ${obj#"$TOP"/}/.config" "configure and build: make build FLAVOUR=$flavour"
	log=$LOGS/build-$flavour.log
	jobs=$(nproc)
	# Let clones of this repo at other paths (CI) share ccache entries.
	# Depend mode: a miss costs no extra preprocessor run (kbuild passes
	# -MMD), about a tenth of the CPU of a cold build.
	export CCACHE_BASEDIR=$TOP CCACHE_NOHASHDIR=true CCACHE_DEPEND=true
	stage "building '$flavour' (log: ${log#"$TOP"/})"
	start=$SECONDS
	mkdir -p "$LOGS"
	: >"$log"
	touch "$obj/.kernel-make-start.new"
	progress "$log" 20 &
	pid=$!
	# LOCALVERSION= (set, empty) stops setlocalversion from appending "+" for
	# the git tree in build/src: the stamp comes from CONFIG_LOCALVERSION.
	# Without the calling make's flags: its -s (make test) would silence
	# kbuild, leaving the log, and so the progress lines, empty.
	run_logged "$log" env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
		make -C "$SRC" ARCH="$arch" O="$obj" -j"$jobs" CC="$(ccache_cc)" LOCALVERSION= all || rc=$?
	kill "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	if [ "$rc" -ne 0 ]; then
		mapfile -t hints < <(build_error_hints "$log" "$obj")
		die "kernel build '$flavour' failed" "${hints[@]}" \
			"the whole log: ${log#"$TOP"/} (search for 'error:')" \
			"fix it in ${SRC#"$TOP"/} on branch todo (git commit, then make refresh), then run: make build FLAVOUR=$flavour"
	fi
	relative_links "$obj"
	stage_time "kernel build $flavour${OBJ_DIR:+ into ${OBJ_DIR#"$TOP"/}}, $(grep -cE "$STEP_RE" "$log" || true) steps" "$((SECONDS - start))"
	n=$(grep -cE "$STEP_RE" "$log" || true)
	[ "$n" -le "$(cat "$log.steps" 2>/dev/null || echo 0)" ] || echo "$n" >"$log.steps"
	# For the Makefile: the image is now as new as .config and the source
	# stamp even when nothing needed linking, and what changes in build/src
	# after the start of this make (.kernel-make-start) may not be in it.
	touch "$image"
	mv -f "$obj/.kernel-make-start.new" "$obj/.kernel-make-start"
	# ./linux is a UML kernel (the smp flavour's is for QEMU), and a build
	# into another dir (OBJ_DIR=, e.g. the candidates alone) is not the one
	# ./linux should run.
	if ! backend_links_top || [ -n "${OBJ_DIR:-}" ]; then
		info "built $(cat "$obj/include/config/kernel.release") ($arch) in $((SECONDS - start)) s: ${image#"$TOP"/}"
		return 0
	fi
	link_top "$flavour"
	info "built $(cat "$obj/include/config/kernel.release") in $((SECONDS - start)) s; ./linux -> ${obj#"$TOP"/}/linux"
}

main "$@"
