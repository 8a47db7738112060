#!/usr/bin/env bash
# Compile-check the series in one cell of configs/compile-matrix: configure
# build/obj-CELL (a flavour's fragments with the cell's changes, or x86_64
# allmodconfig), check that the cell's options came out as asked, then
# compile every C file the series touches whose object that configuration
# builds, built in or as a module.  Cheap (no link, no full build), and it
# catches what 2005's B12 was: a touched file that no longer compiles in
# some configuration.  A warning fails the cell too.
# Usage: scripts/host/compile-check.sh CELL     (--list: the cells)
. "$(dirname "$0")/lib/patches.sh"
. "$(dirname "$0")/lib/kernel-build.sh"
. "$(dirname "$0")/lib/opts.sh"
help_if_asked "$@"

MATRIX=$TOP/configs/compile-matrix

# cells: the matrix without comments, one "CELL BASE CHANGES..." a line.
cells() { sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$MATRIX"; }

# configure_flavour FLAVOUR CHANGES...: the flavour's fragments with the
# changes appended to its first; config.sh --lenient lists the fragments'
# requests that the cell's changes take away (options that depend on them).
configure_flavour() {
	local flavour=$1 frag change first
	shift
	frag=$(mktemp -d)
	cp "$TOP"/configs/*.config "$frag/"
	first=$frag/$(flavour_fragments "$flavour" | awk '{ print $1 }').config
	echo "# Compile check: cell $CELL." >>"$first"
	for change in "$@"; do
		case $change in
		-*)
			sed -i "/^CONFIG_${change#-}=/d" "$frag"/*.config
			echo "# CONFIG_${change#-} is not set" >>"$first"
			;;
		+*) echo "CONFIG_${change#+}=y" >>"$first" ;;
		esac
	done
	CONFIGS=$frag OBJ_DIR=$OBJ "$TOP/scripts/host/config.sh" --flavour "$flavour" --lenient ||
		{ rm -rf "$frag"; die "cell $CELL: its configuration failed" "see the error above; the cell is in ${MATRIX#"$TOP"/}"; }
	rm -rf "$frag"
}

# value NAME: y, m or n in $OBJ/.config.
value() {
	local v
	v=$(sed -n "s/^CONFIG_$1=//p" "$OBJ/.config")
	echo "${v:-n}"
}

# check_changes CHANGES...: each came out as asked.
check_changes() {
	local change name want
	for change in "$@"; do
		name=${change:1}
		case $change in -* | !*) want=n ;; +*) want=y ;; esac
		[ "$(value "$name")" = "$want" ] ||
			die "cell $CELL: CONFIG_$name is $(value "$name") in $OBJ/.config, not $want" \
				"fix the cell's changes in ${MATRIX#"$TOP"/}"
	done
}

# check_exports MODULE... -- OBJECT...: what modpost would say of the
# series' modules, without the vmlinux that a whole build takes hours for:
# every symbol a module needs that a built-in OBJECT of the series defines
# is exported there, and a module that needs a namespaced export
# (EXPORT_SYMBOL_NS*, EXPORT_SYMBOL_IF_KUNIT) imports the namespace.
check_exports() {
	local mod obj sym exp ns bad=0 before mods=() defined
	while [ "$1" != -- ]; do mods+=("$1"); shift; done
	shift
	# "SYMBOL OBJECT" for every global the built-in objects define.
	defined=$(for obj in "$@"; do
		[[ " ${mods[*]} " != *" $obj "* ]] || continue
		nm --defined-only -g "$OBJ/$obj" 2>/dev/null | awk -v o="$obj" 'NF == 3 { print $3, o }'
	done)
	for mod in "${mods[@]}"; do
		before=$bad
		for sym in $(nm -u "$OBJ/$mod" | awk '{ print $2 }'); do
			for obj in $(awk -v s="$sym" '$1 == s { print $2 }' <<<"$defined"); do
				exp=$(grep -hoE -m 1 "EXPORT_SYMBOL[A-Z_]*\($sym(,[^)]*)?\)" "$SRC/${obj%.o}.c") || true
				if [ -z "$exp" ]; then
					info "  error: $mod needs $sym, which ${obj%.o}.c does not export: modpost fails"
					bad=$((bad + 1))
					continue
				fi
				case $exp in
				EXPORT_SYMBOL_IF_KUNIT*) ns=EXPORTED_FOR_KUNIT_TESTING ;;
				EXPORT_SYMBOL_NS*) ns=$(sed 's/.*, *\([A-Za-z0-9_"]*\)).*/\1/; s/"//g' <<<"$exp") ;;
				*) ns= ;;
				esac
				if [ -n "$ns" ] && ! grep -q "MODULE_IMPORT_NS($ns)" "$SRC/${mod%.o}.c"; then
					info "  error: $mod needs $sym in namespace $ns, and ${mod%.o}.c does not import it"
					bad=$((bad + 1))
				fi
			done
		done
		[ "$bad" -ne "$before" ] ||
			info "  module $mod: what it takes from the series' built-in files is exported to it"
	done
	[ "$bad" -eq 0 ] || die "cell $CELL: $bad symbol(s) a module of the series needs are not exported to it" \
		"export them (EXPORT_SYMBOL_GPL, or EXPORT_SYMBOL_IF_KUNIT for a test), then make refresh"
}

main() {
	local line base arch o kind log objs=() mods=() changes list=0 cell=() hints=()
	opts_parse 'list:flag @cell' "$@"
	if [ "$list" -eq 1 ]; then
		cells | awk '{ print $1 }'
		return
	fi
	[ ${#cell[@]} -eq 1 ] || die "compile-check.sh takes one CELL" "the cells: $(cells | awk '{ print $1 }' | paste -sd' ')"
	CELL=${cell[0]}
	line=$(cells | awk -v c="$CELL" '$1 == c')
	[ -n "$line" ] || die "no cell $CELL in ${MATRIX#"$TOP"/}" "the cells: $(cells | awk '{ print $1 }' | paste -sd' ')"
	read -r _ base changes <<<"$line"
	read -ra changes <<<"$changes"
	OBJ=$BUILD/obj-$CELL
	log=$LOGS/compile-check-$CELL.log
	stage "cell $CELL: $base ${changes[*]}"
	if [ "$base" = allmodconfig ]; then
		arch=x86_64
		mkdir -p "$OBJ"
		run_logged "$LOGS/compile-check-$CELL.config.log" make -C "$SRC" ARCH=$arch O="$OBJ" allmodconfig ||
			die "make ARCH=$arch allmodconfig failed" "see $LOGS/compile-check-$CELL.config.log"
	else
		arch=$(flavour_arch "$base")
		configure_flavour "$base" "${changes[@]}"
	fi
	check_changes "${changes[@]}"
	while read -r o kind; do
		case $kind in
		y) objs+=("$o") ;;
		m) objs+=("$o") mods+=("$o") ;;
		*) info "  skipped (not in this config): $o" ;;
		esac
	done < <(touched_objects "$arch")
	stage "cell $CELL: compiling ${#objs[@]} touched file(s) (ARCH=$arch)"
	[ ${#objs[@]} -gt 0 ] || { info "the series touches no C file"; return 0; }
	run_logged "$log" make -C "$SRC" ARCH="$arch" O="$OBJ" -j"$(nproc)" CC="$(ccache_cc)" LOCALVERSION= "${objs[@]}" || {
		mapfile -t hints < <(build_error_hints "$log" "$OBJ")
		die "cell $CELL: a touched file does not compile" "${hints[@]}" "see $log"
	}
	# A warning there is a bug too (e.g. a helper left unused by the stubs).
	! grep -n 'warning:' "$log" >&2 ||
		die "cell $CELL: a touched file compiles with warnings" "see $log"
	[ ${#mods[@]} -eq 0 ] || check_exports "${mods[@]}" -- "${objs[@]}"
	info "cell $CELL: all ${#objs[@]} touched C files compile"
}

main "$@"
