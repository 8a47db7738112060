#!/usr/bin/env bash
# The compiler's extra warnings (W=1), sparse (C=2) and kernel-doc on what
# the series adds: every C file it touches is compiled in build/obj-warn
# (the test flavour's configuration: every option of the series on), and
# scripts/kernel-doc -none -Wall reads every C file and header it touches.
# Only reports on lines the series added count: the pristine 6.12 lines
# around them have their own (kernel-doc's missing "Return:" in
# kernel/freezer.c, say), which are not the series' to fix.
# Usage: scripts/host/warn-check.sh      (make check-patches runs it)
. "$(dirname "$0")/lib/patches.sh"
. "$(dirname "$0")/lib/kernel-build.sh"
. "$(dirname "$0")/lib/opts.sh"
help_if_asked "$@"

OBJ=$BUILD/obj-warn
# Reports that are not bugs, each with why.
IGNORE=$TOP/configs/warn-check.ignore
# Every option of the series on, its tests and test hooks too.
FLAVOUR="test"

# added_lines: "FILE LINE" for every line the series adds to a C file or
# header, as numbered in build/src at the tip of the series.
added_lines() {
	git_src diff -U0 "$PRISTINE_TAG" "$BRANCH" -- '*.c' '*.h' |
		awk '/^\+\+\+ b\// { file = substr($2, 3) }
		     /^@@/ { split($3, r, ","); start = substr(r[1], 2); n = (r[2] == "" ? 1 : r[2])
		             for (i = 0; i < n; i++) print file, start + i }'
}

# on_added_lines ADDED REPORT: the lines of REPORT ("PATH:LINE: ...", PATH
# absolute or relative to build/src) that point at an added line, less
# those configs/warn-check.ignore lets pass.
on_added_lines() {
	awk -v src="$SRC/" 'NR == FNR { added[$1 ":" $2] = 1; next }
		{ line = $0; sub("^" src, "", line)
		  if (match(line, /^[^: ]+:[0-9]+/) && (substr(line, 1, RLENGTH) in added)) print line }' "$1" "$2" |
		grep -vEf <(grep -v '^#' "$IGNORE" | grep .) || true
}

main() {
	local added log objs=() o kind f found=0 docs=()
	opts_parse '' "$@"
	command -v sparse >/dev/null || die "sparse is not installed" "run: make deps (or apt-get install sparse)"
	added=$(mktemp)
	added_lines >"$added"
	OBJ_DIR=$OBJ "$TOP/scripts/host/config.sh" --flavour "$FLAVOUR" >/dev/null ||
		die "could not configure $OBJ" "run: OBJ_DIR=$OBJ scripts/host/config.sh --flavour $FLAVOUR"
	while read -r o kind; do
		[ -z "$kind" ] || objs+=("$o")
	done < <(touched_objects um)
	stage "W=1 and sparse on ${#objs[@]} touched C file(s), $FLAVOUR configuration (ARCH=um)"
	log=$LOGS/warn-check.log
	# C=2: sparse on each file even when its object is up to date.
	run_logged "$log" make -C "$SRC" ARCH=um O="$OBJ" -j"$(nproc)" CC="$(ccache_cc)" LOCALVERSION= \
		W=1 C=2 "${objs[@]}" || die "a touched file does not compile with W=1" "see $log"
	if on_added_lines "$added" "$log" | grep -E ': (warning|error):' >&2; then
		found=1
		info "W=1 or sparse reports the lines above, which the series added (all of it: $log)"
	fi
	while read -r f; do docs+=("$f"); done < <(git_src diff --name-only --diff-filter=AM "$PRISTINE_TAG" "$BRANCH" -- '*.c' '*.h')
	stage "kernel-doc -none -Wall on ${#docs[@]} touched file(s)"
	(cd "$SRC" && perl scripts/kernel-doc -none -Wall "${docs[@]}") >"$log.kernel-doc" 2>&1 || true
	if on_added_lines "$added" "$log.kernel-doc" | grep . >&2; then
		found=1
		info "kernel-doc reports the lines above, which the series added (all of it: $log.kernel-doc)"
	fi
	rm -f "$added"
	[ "$found" -eq 0 ] || die "the series adds lines that W=1, sparse or kernel-doc warn about" \
		"fix them in $SRC, then run 'make refresh' and 'make check-patches'"
	info "W=1, sparse and kernel-doc: nothing on the lines the series adds (${#objs[@]} files compiled, ${#docs[@]} read)"
}

main "$@"
