#!/usr/bin/env bash
# Prepare build/src: Debian's linux-source-6.12 unpacked as a git tree (tag
# "pristine"), with kernel-patches/series then arch-um-patches/series applied
# on branch "todo" by git am.  Edits made there are kept: the series is only
# re-applied when the queues changed and the branch holds nothing unexported.
. "$(dirname "$0")/lib.sh"

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
	rm -f "$STAMP"
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
	echo "$(series_hash) $(git_src rev-parse HEAD)" >"$STAMP"
	info "applied $n patches on top of $PRISTINE_TAG"
}

main() {
	local version want have_hash have_head
	command -v git >/dev/null || die "git is not installed" "run: make deps"
	version=$(source_version)
	info "kernel source: Debian $SOURCE_PKG $version ($SOURCE_TARBALL)"
	if [ ! -d "$SRC/.git" ] || [ "$(cat "$BUILD/SOURCE_VERSION" 2>/dev/null)" != "$version" ]; then
		if [ -f "$STAMP" ] && [ -d "$SRC/.git" ] &&
			[ "$(git_src rev-parse HEAD)" != "$(cut -d' ' -f2 "$STAMP")" ]; then
			die "$SOURCE_PKG changed to $version but $SRC has commits not exported" \
				"export them first: make refresh; then run this again"
		fi
		unpack "$version"
	fi
	want=$(series_hash)
	if [ -f "$STAMP" ] && git_src rev-parse -q --verify "refs/heads/$BRANCH" >/dev/null; then
		read -r have_hash have_head <"$STAMP"
		if [ "$want" = "$have_hash" ]; then
			info "series unchanged since it was applied; building $SRC as it is"
			return 0
		fi
		if [ "$(git_src rev-parse HEAD)" != "$have_head" ] || [ -n "$(git_src status --porcelain)" ]; then
			die "the patch queues changed, but $SRC (branch $BRANCH) has work that is not exported" \
				"keep your work: commit it there and run 'make refresh', or" \
				"drop it: git -C $SRC reset --hard $have_head; then run this again"
		fi
	fi
	apply_series
}

main "$@"
