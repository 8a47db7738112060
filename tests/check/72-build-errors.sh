#!/usr/bin/env bash
# A failed kernel build names where to fix it (build_error_hints in
# scripts/host/lib/kernel-build.sh): on a build log written by hand in
# kbuild's O= format, each error's file is named from the top of the
# project (build/src/FILE, not the absolute path, nor ../src/FILE from the
# object dir), followed by the patches of the series that change FILE, or
# that none does.  No kernel tree needed: the patches are read.
. "$(dirname "$0")/../host/lib.sh"
# shellcheck source=../../scripts/host/lib/kernel-build.sh
. "$TOP/scripts/host/lib/kernel-build.sh"

tmp=$(scratch)
# build/src, the tree make build compiles, whatever KERNEL_SRC says.
SRC=$BUILD/src obj=$BUILD/obj-run
cat >"$tmp/build.log" <<LOG
  CC      kernel/freezer.o
$SRC/kernel/freezer.c: In function 'freeze_task':
$SRC/kernel/freezer.c:120:5: error: 'todo' undeclared (first use in this function)
  CC      fs/select.o
In file included from $SRC/include/linux/sched.h:12,
../src/include/linux/task_todo.h:40:3: error: expected ';' before '}' token
$SRC/fs/select.c:612:1: error: the frame size of 1120 bytes is larger than 1024 bytes [-Werror=frame-larger-than=]
$SRC/kernel/freezer.c:130:1: error: control reaches end of non-void function [-Werror=return-type]
ld: kernel/task_todo.o: in function \`task_todo_run': $SRC/kernel/task_todo.c:33: undefined reference to \`todo_gone'
make[3]: *** [$SRC/scripts/Makefile.build:229: kernel/freezer.o] Error 1
LOG
build_error_hints "$tmp/build.log" "$obj" >"$tmp/hints"
src=${SRC#"$TOP"/}
name="check: build errors: each error names build/src/FILE and the patches that change FILE"
expect "$name" "$tmp/hints" \
	"^$src/kernel/freezer\\.c:120:5: error: 'todo' undeclared" \
	'^  kernel/freezer\.c: changed by kernel-patches/[0-9]{4}(, [0-9]{4})*$' \
	"^$src/include/linux/task_todo\\.h:40:3: error: expected" \
	'^  include/linux/task_todo\.h: changed by kernel-patches/0004' \
	"^$src/fs/select\\.c:612:1: error: the frame size" \
	'^  fs/select\.c: changed by no patch of the series$' \
	"^$src/kernel/task_todo\\.c:33: undefined reference to .todo_gone'$"
name="check: build errors: a file's patches once, at most five errors, make's own lines left out"
if [ "$(grep -c '^  kernel/freezer\.c:' "$tmp/hints")" -eq 1 ] && [ "$(grep -vc '^  ' "$tmp/hints")" -eq 5 ] &&
	! grep -q 'Makefile\|^/' "$tmp/hints"; then
	pass "$name"
else
	fail "$name" "$tmp/hints"
fi
rm -rf "$tmp"
