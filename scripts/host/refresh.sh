#!/usr/bin/env bash
# Export branch "todo" of build/src back into the patch queues with
# git format-patch: patches that touch UML's code (arch/um, and its x86
# part arch/x86/um: MAINTAINERS, USER-MODE LINUX) go to arch-um-patches/,
# all others to kernel-patches/.  Names are NNNN-subject.patch, numbered per
# queue in branch order; comments in the series files are kept.
. "$(dirname "$0")/lib/patches.sh"
help_if_asked "$@"

# queue_of PATCH-COMMIT: "kernel" or "arch-um"; dies on a patch touching both.
queue_of() {
	local commit=$1 um=0 other=0 f
	while read -r f; do
		case $f in arch/um/* | arch/x86/um/*) um=1 ;; *) other=1 ;; esac
	done < <(git_src diff-tree --no-commit-id --name-only -r "$commit")
	if [ "$um" -eq 1 ] && [ "$other" -eq 1 ]; then
		die "commit $(git_src log -1 --format='%h %s' "$commit") touches arch/um and generic code" \
			"split it in $SRC (git rebase -i $PRISTINE_TAG), then run make refresh again"
	fi
	[ "$um" -eq 1 ] && echo arch-um || echo kernel
}

# write_series DIR NAME...: rewrite DIR/series to list NAMEs.  Comments are
# kept: the lines above the first entry stay at the top, the lines above any
# other entry stay with that entry (matched by name without its NNNN-), and
# the lines after the last entry stay at the end.
write_series() {
	local dir=$1 line block="" header="" first=1 name new
	local -A notes=()
	shift
	if [ -f "$dir/series" ]; then
		while IFS= read -r line; do
			case $line in
			\#* | '') block+="$line"$'\n' ;;
			*)
				if [ "$first" -eq 1 ]; then header=$block; else notes[${line#[0-9][0-9][0-9][0-9]-}]=$block; fi
				first=0 block="" ;;
			esac
		done <"$dir/series"
	fi
	[ "$first" -eq 0 ] || { header=$block; block=""; }
	new=$(mktemp)
	printf '%s' "$header" >"$new"
	for name; do
		printf '%s%s\n' "${notes[${name#[0-9][0-9][0-9][0-9]-}]:-}" "$name" >>"$new"
	done
	printf '%s' "$block" >>"$new"
	mv "$new" "$dir/series"
}

# write_cover_letter: kernel-patches/0000-cover-letter.patch, laid out as
# by git format-patch --cover-letter.  Its title and prose are written by
# hand in the file and kept; the patch count, the shortlog and the
# diffstat are made again from the branch.  It is not in the series.
write_cover_letter() {
	local cover=$KERNEL_PATCHES/$COVER_LETTER title prose n
	[ -f "$cover" ] || die "${cover#"$TOP"/} is missing" "restore it: git checkout -- ${cover#"$TOP"/}"
	title=$(sed -n 's/^Subject: \[PATCH [0-9]*\/[0-9]*\] //p' "$cover" | head -n 1)
	[ -n "$title" ] || die "${cover#"$TOP"/} has no 'Subject: [PATCH 00/N] title' line" "add one"
	prose=$(awk -v end="$PROJECT_NAME (" 'body && index($0, end) == 1 { exit } body { print } /^$/ { body = 1 }' "$cover")
	n=$(git_src rev-list --count "$PRISTINE_TAG..$BRANCH")
	{
		echo "From: $PROJECT_NAME <$PROJECT_EMAIL>"
		echo "Subject: [PATCH 00/$n] $title"
		echo
		printf '%s\n\n' "$prose"
		git_src shortlog -w0,2,4 "$PRISTINE_TAG..$BRANCH"
		git_src diff --stat=72 "$PRISTINE_TAG" "$BRANCH"
	} >"$cover.new"
	mv "$cover.new" "$cover"
}

main() {
	local tmp commit queue patch n_kernel=0 n_um=0 seen_um=0 name when
	local kernel_names=() um_names=()
	[ -d "$SRC/.git" ] || die "no tree at $SRC" "run: make source"
	[ -z "$(git_src status --porcelain)" ] ||
		die "$SRC has uncommitted changes; they would not be exported" \
			"commit them there (git -C $SRC commit), then run make refresh"
	stage "exporting $PRISTINE_TAG..$BRANCH of $SRC into the patch queues"
	tmp=$(mktemp -d)
	while read -r commit; do
		queue=$(queue_of "$commit")
		if [ "$queue" = kernel ]; then
			[ "$seen_um" -eq 0 ] || die "generic commit $(git_src log -1 --format='%h %s' "$commit") comes after an arch/um commit" \
				"kernel-patches/ is applied first: move it before the um commits (git -C $SRC rebase -i $PRISTINE_TAG)"
			n_kernel=$((n_kernel + 1))
			patch=$(git_src format-patch -1 --no-signature --zero-commit -N --start-number "$n_kernel" -o "$tmp/kernel" "$commit")
			kernel_names+=("$(basename "$patch")")
		else
			seen_um=1
			n_um=$((n_um + 1))
			patch=$(git_src format-patch -1 --no-signature --zero-commit -N --start-number "$n_um" -o "$tmp/arch-um" "$commit")
			um_names+=("$(basename "$patch")")
		fi
		info "  $queue: $(basename "$patch")"
	done < <(git_src rev-list --reverse "$PRISTINE_TAG..$BRANCH")
	find "$KERNEL_PATCHES" "$ARCH_UM_PATCHES" -maxdepth 1 -name '*.patch' ! -name "$COVER_LETTER" -delete
	[ -d "$tmp/kernel" ] && mv "$tmp"/kernel/*.patch "$KERNEL_PATCHES"/
	[ -d "$tmp/arch-um" ] && mv "$tmp"/arch-um/*.patch "$ARCH_UM_PATCHES"/
	rm -rf "$tmp"
	write_series "$KERNEL_PATCHES" "${kernel_names[@]}"
	write_series "$ARCH_UM_PATCHES" "${um_names[@]}"
	write_cover_letter
	# build/src is where the queues came from, so nothing built from it is
	# stale for them: they take the time of the last apply, as the stamp.
	when=$(stat -c %y "$STAMP" 2>/dev/null || date '+%F %T.%N')
	mark_applied
	{ echo "$STAMP"; printf '%s/series\n' "${PATCH_DIRS[@]}"; all_patches; } | xargs -d '\n' touch -d "$when" --
	info "exported $n_kernel kernel and $n_um arch/um patches; review with: git diff --stat -- kernel-patches arch-um-patches"
}

main "$@"
