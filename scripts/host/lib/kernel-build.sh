# shellcheck shell=bash
# What every kernel build shares: one make per object dir or tree at a
# time, and the compiler.
. "${BASH_SOURCE[0]%/*}/base.sh"

# hold_lock FILE WHAT: hold FILE (flock) until this script exits, so that
# two makes never write one object dir or tree at once: make test's
# background builds and a test that needs the same kernel, or two
# terminals.  When another holds it, say who and wait; the wait is a row
# of make test's stage table.  The lock goes with this process and the
# children that inherit it (the kernel's make), however they end.
hold_lock() {
	local file=$1 what=$2 fd t0=$SECONDS
	mkdir -p "$(dirname "$file")"
	exec {fd}>>"$file"
	if ! flock -n "$fd"; then
		info "waiting for another build of $what to finish (${file#"$TOP"/}: $(cat "$file.owner" 2>/dev/null || echo unknown))"
		flock "$fd"
		info "waited $((SECONDS - t0)) s for the other build of $what"
		stage_time "waited for another build of $what" "$((SECONDS - t0))"
	fi
	printf 'pid %s (%s) since %s\n' "$$" "${0##*/}" "$(ts)" >"$file.owner"
}

ccache_cc() {
	if command -v ccache >/dev/null 2>&1; then echo "ccache gcc"; else echo gcc; fi
}

# built_as OBJ-PATH: y if this object is built in, m if as a module, else
# nothing, going by the obj-$(CONFIG_X) line of its directory's Makefile
# in build/src and the .config in the object directory $OBJ.  A part of a composite object (NAME-objs, NAME-y) is
# built as NAME.o is.  Unknown objects count as built in.
built_as() {
	local o=$1 dir base sym line
	dir=$(dirname "$o") base=$(basename "$o")
	line=$(grep -hE "(^|[[:space:]])$base([[:space:]]|\$)" "$SRC/$dir/Makefile" 2>/dev/null | head -n 1)
	sym=$(sed -n 's/^[a-z0-9_-]*-\$(CONFIG_\([A-Z0-9_]*\)).*/\1/p' <<<"$line")
	if [ -n "$sym" ]; then
		sed -n "s/^CONFIG_$sym=\([ym]\)\$/\1/p" "$OBJ/.config"
	elif [[ $line =~ ^([a-z0-9_]+)-(objs|y)[[:space:]]*[:+]?= ]] && [ "${BASH_REMATCH[1]}" != obj ]; then
		built_as "$dir/${BASH_REMATCH[1]}.o"
	else
		echo y
	fi
}
