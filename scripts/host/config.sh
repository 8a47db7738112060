#!/usr/bin/env bash
# Make build/obj-FLAVOUR/.config: merge configs/ fragments onto the UML
# x86_64 defconfig (run, test, bench) or onto allnoconfig (smp, an x86_64
# kernel for QEMU) with the kernel's merge_config.sh, then check that every
# option a fragment asks for survived olddefconfig.  It always configures
# anew: whether that is needed is the Makefile's call (make config).
# Usage: scripts/host/config.sh [--flavour run|test|bench|smp] [--lenient]
# --lenient: list the requests the configuration does not honour instead of
# failing (the compile check's cells, which switch options off on purpose).
. "$(dirname "$0")/lib/opts.sh"
. "$(dirname "$0")/lib/kernel-build.sh"
help_if_asked "$@"

CONFIGS=${CONFIGS:-$TOP/configs}

# check_fragment FRAGMENT CONFIG: print "OPTION<TAB>wanted<TAB>got" for each
# request in FRAGMENT that CONFIG does not honour.
check_fragment() {
	local frag=$1 cfg=$2 line name want got
	while IFS= read -r line; do
		case $line in
		CONFIG_*=*) name=${line%%=*} want=${line#*=} ;;
		"# CONFIG_"*" is not set") name=${line#\# } name=${name%% *} want=n ;;
		*) continue ;;
		esac
		got=$(sed -n "s/^$name=//p" "$cfg")
		[ -n "$got" ] || got=n
		[ "$got" = "$want" ] || printf '%s\t%s\t%s\n' "$name" "$want" "$got"
	done <"$frag"
}

# Why an option may be missing: unknown symbol, or unmet dependencies.
explain_option() {
	local sym=${1#CONFIG_}
	if grep -rqs --include='Kconfig*' -E "^(menu)?config $sym\$" "$SRC"; then
		echo "its dependencies are not met on ARCH=$ARCH (see: make -C $SRC ARCH=$ARCH O=$OBJ menuconfig, search $sym)"
	else
		echo "no such option in this kernel (many options do not exist on UML)"
	fi
}

main() {
	local flavour frags=() f bad=0 log base merge_base=() lenient=0
	flavour=$(default_flavour config)
	opts_parse 'flavour:flavour lenient:flag' "$@"
	OBJ=$(obj_dir "$flavour")
	ARCH=$(flavour_arch "$flavour")
	backend_load "$flavour"
	base=$(backend_config_base)
	for f in $(flavour_fragments "$flavour"); do
		[ -f "$CONFIGS/$f.config" ] || die "config fragment $CONFIGS/$f.config is missing"
		frags+=("$CONFIGS/$f.config")
	done
	hold_lock "$OBJ.lock" "${OBJ#"$TOP"/}"
	mkdir -p "$OBJ"
	if [ "$base" = allnoconfig ]; then
		# -n: merge_config.sh runs allnoconfig with the fragments as
		# KCONFIG_ALLCONFIG, so what no fragment names is off.
		merge_base=(-n)
	else
		merge_base=(-m "$base")
	fi
	stage "configuring '$flavour' (ARCH=$ARCH) from $base and ${frags[*]#"$TOP"/}"
	log=$LOGS/config-$flavour.log
	(cd "$SRC" && ARCH=$ARCH run_logged "$log" scripts/kconfig/merge_config.sh "${merge_base[0]}" -O "$OBJ" \
		"${merge_base[@]:1}" "${frags[@]}") ||
		die "merge_config.sh failed" "see $log"
	run_logged "$log.olddefconfig" make -C "$SRC" ARCH="$ARCH" O="$OBJ" olddefconfig ||
		die "make olddefconfig failed" "see $log.olddefconfig"
	for f in "${frags[@]}"; do
		while IFS=$'\t' read -r name want got; do
			if [ "$lenient" -eq 1 ]; then
				info "  $name=$want requested by ${f#"$TOP"/} is $got here"
				continue
			fi
			printf '[%s] error: %s=%s requested by %s is %s in the final .config: %s\n' \
				"$(ts)" "$name" "$want" "${f#"$TOP"/}" "$got" "$(explain_option "$name")" >&2
			bad=1
		done < <(check_fragment "$f" "$OBJ/.config")
	done
	if [ "$bad" -ne 0 ]; then
		rm -f "$OBJ/.config" # no build from it, and make configures again
		die "configuration '$flavour' does not have every requested option" \
			"fix the fragment named above, then run this again"
	fi
	if [ "$lenient" -eq 1 ]; then
		info "config written: $OBJ/.config (--lenient: the requests listed above were not honoured)"
	else
		info "config OK: every requested option is in $OBJ/.config"
	fi
}

main "$@"
