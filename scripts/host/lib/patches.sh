# shellcheck shell=bash
# The patch queues and build/src: where they are, their series, the git
# tree they are applied to, and whether they apply.
. "${BASH_SOURCE[0]%/*}/base.sh"

PRISTINE_TAG=pristine
BRANCH=todo
SOURCE_PKG=linux-source-6.12
SOURCE_TARBALL=${SOURCE_TARBALL:-/usr/src/linux-source-6.12.tar.xz}
# The two patch queues, applied in this order.  Overridable so tests can
# point the tools at a damaged copy without touching the real queues.
KERNEL_PATCHES=${KERNEL_PATCHES:-$TOP/kernel-patches}
ARCH_UM_PATCHES=${ARCH_UM_PATCHES:-$TOP/arch-um-patches}
PATCH_DIRS=("$KERNEL_PATCHES" "$ARCH_UM_PATCHES")
# The series' introduction in kernel-patches/, not applied.
COVER_LETTER=0000-cover-letter.patch
# Project identity used as the author of every exported patch.
PROJECT_NAME="todo-freezer project"
PROJECT_EMAIL="todo-freezer@users.noreply.github.com"

# Patch names listed in DIR/series, in order (comments and blanks skipped).
series_patches() {
	local dir=$1 name
	[ -f "$dir/series" ] || die "$dir/series is missing" "create it (one patch file name per line)"
	while read -r name; do
		case $name in '' | \#*) continue ;; esac
		[ -f "$dir/$name" ] || die "$dir/series names $name, which does not exist" \
			"fix the series file or run 'make refresh'"
		echo "$dir/$name"
	done <"$dir/series"
}

# Every patch of the series, kernel-patches first, as paths.
all_patches() {
	local dir
	for dir in "${PATCH_DIRS[@]}"; do series_patches "$dir"; done
}

# patches_touching FILE: the patches of the series (paths, in order) that
# change FILE, a path in the kernel tree (kernel/freezer.c).
patches_touching() {
	local patch
	while read -r patch; do
		! grep -qxF -e "--- a/$1" -e "+++ b/$1" "$patch" || echo "$patch"
	done < <(all_patches)
}

git_src() { git -C "$SRC" "$@"; }

# The Makefile's target for "build/src holds the series": written by
# source.sh after applying it and by refresh.sh after exporting it, and
# newer than every series file and patch then.  It holds the todo head of
# that moment: work on top of it is not exported yet.
STAMP=$SRC/.git/SERIES_APPLIED
mark_applied() { git_src rev-parse HEAD >"$STAMP"; }

# check_series_applies: apply every patch, in order, to a scratch index that
# holds the pristine tree (build/src is not touched).  git apply allows no
# fuzz: every context line must match.  On failure print the patch and the
# rejected file(s) and return 1.
check_series_applies() {
	local index patch out rejected rc=0
	index=$(mktemp)
	GIT_INDEX_FILE=$index git_src read-tree "$PRISTINE_TAG"
	while read -r patch; do
		if ! out=$(GIT_INDEX_FILE=$index git_src apply --cached "$patch" 2>&1); then
			rejected=$(sed -n 's/^error: \(.*\): patch does not apply$/\1/p; s/^error: patch failed: \(.*\):[0-9]*$/\1/p' <<<"$out" | sort -u | paste -sd' ')
			printf '[%s] error: patch %s does not apply to pristine %s %s\n' "$(ts)" \
				"${patch#"$TOP"/}" "$SOURCE_PKG" "$(cat "$BUILD/SOURCE_VERSION" 2>/dev/null)" >&2
			printf '  rejected file(s): %s\n' "${rejected:-see below}" >&2
			sed 's/^/  | /' <<<"$out" >&2
			rc=1
			break
		fi
		info "  applies: ${patch#"$TOP"/}"
	done < <(all_patches)
	rm -f "$index"
	return "$rc"
}
