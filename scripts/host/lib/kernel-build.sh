# shellcheck shell=bash
# What every kernel build shares: one make per object dir or tree at a
# time, the compiler, and where its errors are to be fixed.
. "${BASH_SOURCE[0]%/*}/base.sh"
. "${BASH_SOURCE[0]%/*}/patches.sh"

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

# patch_numbers: the patch paths on stdin as "kernel-patches/0002, 0010,
# arch-um-patches/0001": short enough for one line per file.
patch_numbers() {
	awk -v top="$TOP/" '{
		if (index($0, top) == 1) $0 = substr($0, length(top) + 1)
		dir = $0; sub("/[^/]*$", "", dir); n = substr($0, length(dir) + 2, 4)
		printf "%s%s", (NR > 1 ? ", " : ""), (dir == last ? n : dir "/" n)
		last = dir
	}'
}

# build_error_hints LOG OBJ: the first errors of the kernel make whose
# output is LOG (its object dir OBJ), each with its file named from the top
# of the project (kbuild names build/src/FILE by its absolute path with O=,
# or from OBJ), and the patches that change FILE: where to fix it.  Lines
# for die's next steps.
build_error_hints() {
	local log=$1 obj=$2 line loc path file n=0 src top seen=" " patches
	src=$(realpath -m "$SRC") top=$(realpath -m "$TOP")
	while IFS= read -r line && [ "$n" -lt 5 ]; do
		loc=$(grep -oE "[^ :\`']+\.(c|h|S|lds):[0-9]+" <<<"$line" | head -n 1) || continue
		n=$((n + 1))
		path=${loc%:*}
		[[ $path == /* ]] || path=$obj/$path
		path=$(realpath -m "$path")
		echo "${path#"$top"/}:${loc##*:}${line#*"$loc"}"
		[[ $path == "$src"/* ]] || continue
		file=${path#"$src"/}
		[[ $seen != *" $file "* ]] || continue
		seen+="$file "
		patches=$(patches_touching "$file" | patch_numbers)
		echo "  $file: changed by ${patches:-no patch of the series}"
	done < <(grep -E '(^|[^a-z])(fatal )?error: |undefined reference to ' "$log")
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

# touched_objects ARCH: "OBJECT y|m" for the object of each C file the
# series adds or changes that a kernel of ARCH (um, x86_64) compiles at
# all, built in or as a module in $OBJ/.config, or "OBJECT" alone when
# that configuration leaves it out.  UML's own files are arch/um and
# arch/x86/um; x86_64's, the rest of arch/x86.
touched_objects() {
	local arch=$1 f o
	while read -r f; do
		case $arch:$f in
		um:arch/um/* | um:arch/x86/um/*) ;;
		x86_64:arch/x86/um/*) continue ;;
		x86_64:arch/x86/*) ;;
		*:arch/* | *:tools/* | *:scripts/* | *:samples/*) continue ;;
		esac
		o=${f%.c}.o
		echo "$o $(built_as "$o")"
	done < <(git_src diff --name-only --diff-filter=AM "$PRISTINE_TAG" "$BRANCH" -- '*.c')
}
