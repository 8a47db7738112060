#!/usr/bin/env bash
# Every make target that builds from the kernel source works as the first
# command on a fresh clone: build/ does not exist yet.  Each target runs in
# its own clone (of HEAD, with git clone: what is committed) until it has
# passed the package check (build/PACKAGES_OK, which once could not be
# written into a missing build/) and reached the unpacking of the source,
# which is pointed at a missing tarball so that it stops there, naming it.
# About 2 s a target.
. "$(dirname "$0")/lib.sh"

TARGETS=(source config build initramfs run test bench trace demo debug race stress check-patches)
missing=/nonexistent/linux-source-6.12.tar.xz
tmp=$(scratch)
for target in "${TARGETS[@]}"; do
	name="first command: make $target on a fresh clone gets past the package check to the source"
	clone=$tmp/$target
	out=$tmp/$target.out
	git clone -q "$TOP" "$clone"
	# </dev/null: make run would otherwise wait for a terminal's input.
	(cd "$clone" && SOURCE_TARBALL=$missing timeout 120 make "$target" </dev/null) >"$out" 2>&1 || true
	if grep -q 'cannot touch\|No such file or directory' <(grep -v "$missing" "$out"); then
		fail "$name (a file could not be written: see below)" "$out"
	elif [ ! -f "$clone/build/PACKAGES_OK" ]; then
		fail "$name (no build/PACKAGES_OK)" "$out"
	else
		expect "$name" "$out" "error: $missing is missing"
	fi
	rm -rf "$clone"
done
rm -rf "$tmp"
