#!/usr/bin/env bash
# Lint the patch queues: series files match the directories, candidates
# come before aids, the cover letter is current, every patch
# applies to the pristine source with no fuzz (in a scratch git index, so
# build/src is never touched), has an upstream-style header, and passes
# scripts/checkpatch.pl --strict; then W=1, sparse and kernel-doc on what
# the series adds (scripts/host/warn-check.sh).  Exit 1 naming each patch
# or line that fails.
. "$(dirname "$0")/lib/patches.sh"
help_if_asked "$@"

SUBJECT_MAX=75
STATUS_RE='^Upstream-Status: (Pending|Submitted \[.+\]|Accepted|Backport \[.+\]|Denied|Inappropriate \[.+\])$'
failures=0

fail() {
	printf '[%s] FAIL %s\n' "$(ts)" "$1" >&2
	shift
	local line
	for line in "$@"; do printf '  %s\n' "$line" >&2; done
	failures=$((failures + 1))
}

check_series_files() {
	local dir p
	for dir in "${PATCH_DIRS[@]}"; do
		for p in "$dir"/*.patch; do
			[ -e "$p" ] && [ "$(basename "$p")" != "$COVER_LETTER" ] || continue
			grep -qx "$(basename "$p")" "$dir/series" ||
				fail "${p#"$TOP"/} is not listed in ${dir#"$TOP"/}/series" "add it, or run 'make refresh'"
		done
	done
}

# patch_subject PATCH: its Subject: without "[PATCH ...] ", unfolded.
patch_subject() {
	awk '/^Subject: / { s = $0; while ((getline line) > 0 && line ~ /^[ \t]/) s = s line
		sub(/^Subject: (\[PATCH[^]]*\] )?/, "", s); print s; exit }' "$1"
}

# Upstream candidates first: within each queue, no patch follows an aid
# (Upstream-Status: Inappropriate), so the candidates read as a series.
check_aids_last() {
	local dir patch aid
	for dir in "${PATCH_DIRS[@]}"; do
		aid=""
		while read -r patch; do
			if grep -q '^Upstream-Status: Inappropriate' "$patch"; then
				aid=$patch
			elif [ -n "$aid" ]; then
				fail "${patch#"$TOP"/} is an upstream candidate after the aid ${aid#"$TOP"/}" \
					"move the aids to the end (git -C $SRC rebase -i $PRISTINE_TAG), then run 'make refresh'"
			fi
		done < <(series_patches "$dir")
	done
}

# The cover letter counts every patch and names each in its shortlog.
check_cover_letter() {
	local cover=$KERNEL_PATCHES/$COVER_LETTER n patch subject
	if [ ! -f "$cover" ]; then
		fail "${cover#"$TOP"/} is missing" "restore it (git checkout), then run 'make refresh'"
		return
	fi
	n=$(all_patches | wc -l)
	grep -q "^Subject: \[PATCH 00/$n\] " "$cover" ||
		fail "${cover#"$TOP"/} does not say [PATCH 00/$n]" "run 'make refresh'"
	while read -r patch; do
		subject=$(patch_subject "$patch")
		grep -qxF "  $subject" "$cover" ||
			fail "${cover#"$TOP"/} does not list '$subject'" "run 'make refresh'"
	done < <(all_patches)
}

check_header() {
	local patch=$1 name=${1#"$TOP"/} subject summary
	subject=$(patch_subject "$patch")
	summary=${subject#*: }
	if [ -z "$subject" ]; then
		fail "$name has no Subject: line" "export patches with 'make refresh'"
		return
	fi
	[[ $subject =~ ^[a-z0-9_/.,-]+(:\ [a-zA-Z0-9_/.,-]+)*:\ [A-Z] ]] ||
		fail "$name: subject '$subject' is not 'subsys: Imperative summary'"
	[ ${#subject} -le $SUBJECT_MAX ] ||
		fail "$name: subject is ${#subject} characters, more than $SUBJECT_MAX"
	[[ $summary != *. ]] || fail "$name: subject ends with a period"
	grep -Eq "$STATUS_RE" "$patch" ||
		fail "$name has no valid Upstream-Status: trailer" \
			"add one of: Pending, Submitted [where], Backport [from], Inappropriate [why]"
	grep -q "^From: $PROJECT_NAME <$PROJECT_EMAIL>" "$patch" ||
		fail "$name: the author is not '$PROJECT_NAME <$PROJECT_EMAIL>'"
	grep -q "^Signed-off-by: " "$patch" || fail "$name has no Signed-off-by:"
}

# new_files_maintained PATCH: every file PATCH adds is already in a
# MAINTAINERS section (not only THE REST), so the patch needs no
# MAINTAINERS change of its own.
new_files_maintained() {
	local file
	while read -r file; do
		(cd "$SRC" && perl scripts/get_maintainer.pl --nogit --nogit-fallback --sections -f "$file") 2>/dev/null |
			awk '/^[A-Z][^:]/ && $0 != "THE REST" { found = 1 } END { exit !found }' ||
			return 1
	done < <(awk '/^diff --git/ { file = substr($4, 3) } /^new file mode/ { print file }' "$1")
}

check_style() {
	local patch=$1 out ignore=UNKNOWN_COMMIT_ID
	# UNKNOWN_COMMIT_ID: build/src comes from a tarball, with no upstream
	# history to find the commit of a Fixes: tag in (its form is checked).
	# FILE_PATH_CHANGES asks whether MAINTAINERS needs a new line; it does
	# not when a section already covers every added file.
	if new_files_maintained "$patch"; then ignore+=,FILE_PATH_CHANGES; fi
	# Debian's python3 first: spdxcheck.py needs its python3-ply and -git.
	if ! out=$(cd "$SRC" && PATH=/usr/bin:$PATH perl scripts/checkpatch.pl --strict --quiet --show-types \
		--ignore "$ignore" "$patch" </dev/null 2>&1); then
		fail "${patch#"$TOP"/}: checkpatch.pl --strict is not clean" "$(sed 's/^/| /' <<<"$out")"
	fi
}

main() {
	local patch n=0
	[ -d "$SRC/.git" ] || die "no pristine tree at $SRC" "run: make source"
	stage "checking the patch queues (${KERNEL_PATCHES#"$TOP"/}, ${ARCH_UM_PATCHES#"$TOP"/})"
	check_series_files
	check_aids_last
	check_cover_letter
	check_series_applies || fail "the series does not apply (see above)"
	while read -r patch; do
		check_header "$patch"
		check_style "$patch"
		n=$((n + 1))
	done < <(all_patches)
	if [ "$failures" -ne 0 ]; then
		die "$failures problem(s) in the patch queues" "fix them in $SRC, then run 'make refresh' and 'make check-patches'"
	fi
	info "all $n patches apply with no fuzz, have proper headers and are checkpatch --strict clean"
	"$TOP/scripts/host/warn-check.sh"
}

main "$@"
