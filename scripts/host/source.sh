#!/usr/bin/env bash
# Prepare build/src: Debian's linux-source-6.12 unpacked as a git tree (tag
# "pristine"), with kernel-patches/series then arch-um-patches/series applied
# on branch "todo" by git am.  Whether that is needed is the Makefile's call
# (make source: the queues are newer than build/src/.git/SERIES_APPLIED);
# run alone, it applies the series again.  Edits made there are kept: it
# stops when the branch holds work not exported.
. "$(dirname "$0")/lib/patches.sh"
help_if_asked "$@"

source_version() {
	dpkg-query -W -f='${Version}' "$SOURCE_PKG" 2>/dev/null ||
		die "Debian package $SOURCE_PKG is not installed" "run: make deps (or apt-get install $SOURCE_PKG)"
}

unpack() {
	local version=$1 tmp=$BUILD/src.new
	[ -f "$SOURCE_TARBALL" ] || die "$SOURCE_TARBALL is missing" "reinstall it: apt-get install --reinstall $SOURCE_PKG"
	stage "unpacking $SOURCE_PKG $version into $SRC"
	rm -rf "$tmp"
	mkdir -p "$tmp"
	run tar -C "$tmp" --strip-components=1 -xf "$SOURCE_TARBALL"
	info "recording the pristine tree in git (tag $PRISTINE_TAG)"
	git -C "$tmp" init -q -b "$BRANCH"
	git -C "$tmp" config user.name "$PROJECT_NAME"
	git -C "$tmp" config user.email "$PROJECT_EMAIL"
	git -C "$tmp" config core.abbrev 12
	git -C "$tmp" add -A -f .
	git -C "$tmp" commit -q -m "Debian $SOURCE_PKG $version (pristine)"
	git -C "$tmp" tag "$PRISTINE_TAG"
	rm -rf "$SRC"
	mv "$tmp" "$SRC"
	echo "$version" >"$BUILD/SOURCE_VERSION"
}

# Die if build/src has commits or changes past the last apply or export:
# a new source or a fresh apply would drop them.
check_exported() {
	local applied
	[ -f "$STAMP" ] && [ -d "$SRC/.git" ] || return 0
	applied=$(awk '{ print $NF }' "$STAMP") # an older stamp had "HASH HEAD"
	[ "$(git_src rev-parse HEAD)" != "$applied" ] || [ -n "$(git_src status --porcelain)" ] || return 0
	die "$1, but $SRC (branch $BRANCH) has work that is not exported" \
		"keep your work: commit it there and run 'make refresh', or" \
		"drop it: git -C $SRC reset --hard $applied; then run this again"
}

# The series was checked to apply (check_series_applies), so git am only
# fails on a damaged mail header; say which patch.
am_one() {
	local patch=$1
	git_src am --keep-cr -q "$patch" || {
		git_src am --abort >/dev/null 2>&1 || true
		die "git am failed on ${patch#"$TOP"/}" "check its mail header; re-export it with 'make refresh'"
	}
}

apply_series() {
	local patch n=0
	stage "applying the series on branch $BRANCH"
	check_series_applies ||
		die "the series does not apply to $SOURCE_PKG $(cat "$BUILD/SOURCE_VERSION")" \
			"refresh the patch named above against this source: fix it in $SRC, then run 'make refresh'"
	git_src checkout -q -f -B "$BRANCH" "$PRISTINE_TAG"
	git_src clean -q -fdx
	while read -r patch; do
		info "  git am ${patch#"$TOP"/}"
		am_one "$patch"
		n=$((n + 1))
	done < <(all_patches)
	mark_applied
	info "applied $n patches on top of $PRISTINE_TAG"
}

main() {
	local version
	command -v git >/dev/null || die "git is not installed" "run: make deps"
	version=$(source_version)
	info "kernel source: Debian $SOURCE_PKG $version ($SOURCE_TARBALL)"
	# Trees applied before the stamp moved into build/src/.git.
	[ ! -f "$BUILD/SERIES_APPLIED" ] || [ ! -d "$SRC/.git" ] || mv -f "$BUILD/SERIES_APPLIED" "$STAMP"
	if [ ! -d "$SRC/.git" ] || [ "$(cat "$BUILD/SOURCE_VERSION" 2>/dev/null)" != "$version" ]; then
		check_exported "$SOURCE_PKG changed to $version"
		unpack "$version"
	fi
	check_exported "the series is to be applied again"
	apply_series
}

main "$@"
