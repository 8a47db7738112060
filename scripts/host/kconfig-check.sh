#!/usr/bin/env bash
# The series' options in a configuration the project does not build: the
# Kconfig result of "make ARCH=x86_64 allmodconfig" (CONFIG_KUNIT=m, every
# option on) in build/obj-allmodconfig, read without building a kernel
# (a whole allmodconfig build takes hours on two cores).  Prints the value
# of every option the series adds, and fails when a KUnit suite option is
# y while CONFIG_KUNIT=m: the suite would be built into vmlinux and call
# functions that live in kunit.ko, so vmlinux would not link.
# An option not in the .config is listed as not offered (e.g. a built-in
# suite that needs KUNIT=y).  arch/um's own options are not looked at:
# x86_64 does not read arch/um/Kconfig.
# Usage: scripts/host/kconfig-check.sh [KCONFIG_TARGET]   (allmodconfig)
. "$(dirname "$0")/lib/patches.sh"
help_if_asked "$@"

target=${1:-allmodconfig}
OBJ=$BUILD/obj-$target
log=$LOGS/kconfig-check-$target.log

# series_options: "NAME TYPE" of every option the series adds (+config
# lines of its Kconfig files, the type from the line after).
series_options() {
	git_src diff -U1 "$PRISTINE_TAG" "$BRANCH" -- '*Kconfig*' ':!arch/um' |
		awk '/^\+(menu)?config / { sym = $2; next }
		     sym != "" { if (match($0, /^\+[[:space:]]+(bool|tristate|int|string|hex)/)) {
		                   split(substr($0, RSTART + 1), w, /[[:space:]]+/); t = w[1] == "" ? w[2] : w[1]
		                   print sym, t }
		                 sym = "" }'
}

value() { sed -n "s/^CONFIG_$1=//p; s/^# CONFIG_$1 is not set/n/p" "$OBJ/.config"; }

main() {
	local sym type val kunit errors=0 n=0
	stage "the Kconfig result of ARCH=x86_64 $target, for the series' options"
	mkdir -p "$OBJ"
	run_logged "$log" make -C "$SRC" ARCH=x86_64 O="$OBJ" "$target" ||
		die "make ARCH=x86_64 $target failed" "see $log"
	kunit=$(value KUNIT)
	info "CONFIG_KUNIT=${kunit:-missing}"
	while read -r sym type; do
		n=$((n + 1))
		val=$(value "$sym")
		if [ -z "$val" ]; then
			info "  CONFIG_$sym ($type): not offered, its dependencies are not met"
			continue
		fi
		info "  CONFIG_$sym=$val ($type)"
		if [[ $sym == *KUNIT_TEST && $kunit == m && $val == y ]]; then
			info "  error: CONFIG_$sym=y with CONFIG_KUNIT=m: a built-in suite calls kunit.ko, vmlinux does not link (depend on KUNIT=y, or make it tristate)"
			errors=$((errors + 1))
		fi
	done < <(series_options)
	[ "$n" -gt 0 ] || die "found no option added by the series in $SRC" "is build/src at branch $BRANCH? run make source"
	[ "$errors" -eq 0 ] || die "$errors problem(s) with the series' options under ARCH=x86_64 $target" "fix their Kconfig entries in $SRC, then make refresh"
	info "none of the $n options of the series is a built-in KUnit suite with KUNIT=m under ARCH=x86_64 $target"
}

main "$@"
