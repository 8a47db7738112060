#!/usr/bin/env bash
# Compile-check the series with a feature switched off: configure the run
# flavour plus "# CONFIG_OPTION is not set" in build/obj-no-OPTION, then
# compile every C file the series touches whose object that config builds.
# Cheap (no link, no full build), and it catches what 2005's B12 was: a
# touched file that no longer compiles in some configuration.
# Usage: scripts/host/compile-check.sh OPTION   (e.g. TASK_TODO)
. "$(dirname "$0")/lib/patches.sh"
. "$(dirname "$0")/lib/kernel-build.sh"
help_if_asked "$@"

# built_in OBJ-PATH: is this object listed as obj-y (or obj-$(CONFIG_X) with
# X=y) in its directory's Makefile?  Unknown objects count as built.
built_in() {
	local o=$1 dir base sym line
	dir=$(dirname "$o") base=$(basename "$o")
	line=$(grep -hE "(^|[[:space:]])$base([[:space:]]|\$)" "$SRC/$dir/Makefile" 2>/dev/null | head -n 1)
	[ -n "$line" ] || return 0
	sym=$(sed -n 's/^[a-z0-9_-]*-\$(CONFIG_\([A-Z0-9_]*\)).*/\1/p' <<<"$line")
	[ -z "$sym" ] || grep -q "^CONFIG_$sym=y" "$OBJ/.config"
}

# dependents OPTION: the options whose "depends on" names OPTION, and
# theirs in turn: they go off with it, so the fragments must not ask for them.
dependents() {
	local option=$1 dep
	for dep in $(find "$SRC" -name 'Kconfig*' -not -path '*/tools/*' -print0 |
		xargs -0 awk -v opt="$option" '
			/^(menu)?config / { sym = $2 }
			/^[[:space:]]+depends on/ && sym != "" && $0 ~ ("(^|[^A-Z0-9_])" opt "([^A-Z0-9_]|$)") { print sym }' |
		sort -u); do
		echo "$dep"
		dependents "$dep"
	done
}

main() {
	local option=${1:?usage: compile-check.sh OPTION} frag f o log objs=()
	OBJ=$BUILD/obj-no-$option
	log=$LOGS/compile-check-$option.log
	frag=$(mktemp -d)
	cp "$TOP"/configs/*.config "$frag/"
	for o in "$option" $(dependents "$option" | sort -u); do
		sed -i "/^CONFIG_$o=/d" "$frag"/*.config
	done
	# EXPERT makes options such as TASK_TODO visible, so they can be off.
	printf '# Compile check: the feature switched off.\nCONFIG_EXPERT=y\n# CONFIG_%s is not set\n' \
		"$option" >>"$frag/base.config"
	CONFIGS=$frag OBJ_DIR=$OBJ "$TOP/scripts/host/config.sh" --flavour run
	rm -rf "$frag"
	grep -q "^# CONFIG_$option is not set" "$OBJ/.config" ||
		die "CONFIG_$option could not be switched off in $OBJ/.config"
	while read -r f; do
		o=${f%.c}.o
		case $f in arch/* | tools/* | scripts/* | samples/*) [[ $f == arch/um/* ]] || continue ;; esac
		if built_in "$o"; then objs+=("$o"); else info "  skipped (not in this config): $o"; fi
	done < <(git_src diff --name-only --diff-filter=AM "$PRISTINE_TAG" "$BRANCH" -- '*.c')
	stage "compiling ${#objs[@]} touched file(s) with CONFIG_$option off"
	[ ${#objs[@]} -gt 0 ] || { info "the series touches no C file"; return 0; }
	run_logged "$log" make -C "$SRC" ARCH=um O="$OBJ" -j"$(nproc)" CC="$(ccache_cc)" LOCALVERSION= "${objs[@]}" ||
		die "a touched file does not compile with CONFIG_$option off" "see $log"
	# A warning there is a bug too (e.g. a helper left unused by the stubs).
	! grep -n 'warning:' "$log" >&2 ||
		die "a touched file compiles with warnings with CONFIG_$option off" "see $log"
	info "all ${#objs[@]} touched C files compile with CONFIG_$option off"
}

main "$@"
