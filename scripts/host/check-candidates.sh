#!/usr/bin/env bash
# "make check-candidates": the upstream candidates alone.  Every patch of
# both queues whose Upstream-Status is not "Inappropriate" is applied, in
# series order, to the pristine source in a tree of its own
# (build/candidates/src, a worktree of build/src), built with the run
# flavour's config (configs/base.config asks for no test, teaching or
# bench option) into build/candidates/obj-run, and booted with guest job
# "candidates" (scripts/guest/jobs/candidates-job.sh): a freeze with each freezer.
# So a submission of the candidates would not lean on the aids.
# Exit: 0 when the guest passed; the boot's exit status otherwise.
# Usage: scripts/host/check-candidates.sh [--build-only] [--show all|guest|none]
#          [--timeout S]
#   --build-only: apply and build, no boot (make test builds it so in the
#   background); --show: what of the console is printed too, as boot.sh's
#   (guest; tests/host/12-candidates.sh: none); --timeout: the guest's
#   time limit, 300 s.
. "$(dirname "$0")/lib/opts.sh"
. "$(dirname "$0")/lib/patches.sh"
. "$(dirname "$0")/lib/kernel-build.sh"
help_if_asked "$@"

# The same layout as build/src and build/obj-run: the compiler sees the
# same relative paths (ccache's base dir is the repo), so the run kernel
# and the candidates share ccache entries for every file the aids do not
# change (about 90%), and whichever is built second costs little.
DIR=$BUILD/candidates
TREE=$DIR/src
OBJ=$DIR/obj-run

# The candidates, as paths, in series order.
candidates() {
	local patch
	while read -r patch; do
		grep -q '^Upstream-Status: Inappropriate' "$patch" || echo "$patch"
	done < <(all_patches)
}

# Apply the candidates to a fresh pristine worktree, unless it already
# holds exactly these patches: re-applying rewrites headers such as
# sched.h and would rebuild the whole kernel each time.
prepare_tree() {
	local hash patch
	hash=$(candidates | xargs cat | sha256sum | cut -d' ' -f1)
	if [ "$(cat "$TREE.applied" 2>/dev/null)" = "$hash" ]; then
		info "build/candidates/src already holds these candidates"
		return
	fi
	rm -f "$TREE.applied"
	# The worktree was build/candidates itself before it moved to src/.
	if [ -e "$DIR/.git" ]; then
		rm -rf "$DIR" "$BUILD/obj-candidates"
		git_src worktree prune
	fi
	# A worktree of an earlier build/src (make source made a new one) is
	# no tree any more: start again.
	# (.git first: in a plain directory git would find this repository.)
	if ! { [ -e "$TREE/.git" ] && git -C "$TREE" rev-parse --git-dir >/dev/null 2>&1; }; then
		rm -rf "$TREE"
		git_src worktree prune
		run git_src worktree add -q --detach "$TREE" "$PRISTINE_TAG"
	else
		run git -C "$TREE" checkout -q --detach -f "$PRISTINE_TAG"
		run git -C "$TREE" clean -fdqx
	fi
	while read -r patch; do
		git -C "$TREE" apply --index "$patch" ||
			die "candidate ${patch#"$TOP"/} does not apply without the aids before it" \
				"it depends on a test, teaching or bench patch: reorder or split it in $SRC"
		info "  applied: ${patch#"$TOP"/}"
	done < <(candidates)
	echo "$hash" >"$TREE.applied"
}

main() {
	local n build_only=0 show=guest timeout=300
	opts_parse 'build-only:flag show:all|guest|none timeout:number' "$@"
	[ -d "$SRC/.git" ] || die "no pristine tree at $SRC" "run: make source"
	n=$(candidates | wc -l)
	stage "the $n upstream candidates alone: apply, build$([ "$build_only" -eq 1 ] || echo ", boot")"
	# The tree is rewritten before config.sh and build.sh lock the object
	# dir: one check at a time (make test builds it in the background).
	hold_lock "$DIR/src.lock" "the candidates tree ${TREE#"$TOP"/}"
	prepare_tree
	export KERNEL_SRC=$TREE OBJ_DIR=$OBJ BUILD_LOGS=$LOGS/candidates
	"$TOP/scripts/host/config.sh" --flavour run
	"$TOP/scripts/host/build.sh" --flavour run ||
		die "the candidates alone do not build" "see $BUILD_LOGS/build-run.log"
	unset KERNEL_SRC BUILD_LOGS
	[ "$build_only" -eq 0 ] || exit 0
	OBJ_DIR=$OBJ exec "$TOP/scripts/host/boot.sh" --flavour run --job candidates --timeout "$timeout" \
		--show "$show" --log "$LOGS/candidates.log"
}

main "$@"
