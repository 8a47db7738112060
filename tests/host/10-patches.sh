#!/usr/bin/env bash
# The patch queues: clean as they are, and a damaged patch is named.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../../scripts/host/lib/patches.sh"

out=$(scratch)/out
name="patches: series applies to pristine source with no fuzz, headers and checkpatch --strict clean"
if "$TOP/scripts/host/check-patches.sh" >"$out" 2>&1; then
	pass "$name"
	expect "patches: W=1, sparse and kernel-doc report nothing on the lines the series adds" "$out" \
		"W=1, sparse and kernel-doc: nothing on the lines the series adds"
else
	fail "$name" "$out"
fi

# A copy of the queues with one more patch whose context no longer matches
# the pristine Makefile, and an upstream candidate moved after an aid: the
# errors must name that patch and the file, and the misplaced candidate.
tmp=$(scratch)
cp -r "$KERNEL_PATCHES" "$tmp/kernel-patches"
cp -r "$ARCH_UM_PATCHES" "$tmp/arch-um-patches"
bad=9999-kbuild-Damaged-context.patch
{
	printf 'From: %s <%s>\nSubject: [PATCH] kbuild: Damaged context\n\n' "$PROJECT_NAME" "$PROJECT_EMAIL"
	printf 'Upstream-Status: Inappropriate [test]\nSigned-off-by: %s <%s>\n---\n' "$PROJECT_NAME" "$PROJECT_EMAIL"
	printf -- '--- a/Makefile\n+++ b/Makefile\n@@ -1,3 +1,3 @@\n'
	printf ' # SPDX-License-Identifier: GPL-2.0\n-VERSION = 6\n+VERSION = 7\n PATCHLEVEL = 99\n'
} >"$tmp/kernel-patches/$bad"
echo "$bad" >>"$tmp/kernel-patches/series"
# The last candidate that touches no file an aid touches, moved after the
# first aid: it still applies there, so the check reaches the damaged patch.
files_of() { sed -n 's|^diff --git a/\([^ ]*\) .*|\1|p' "$@" | sort -u; }
aids=$(grep -l '^Upstream-Status: Inappropriate' "$KERNEL_PATCHES"/*.patch)
aid=$(head -n 1 <<<"$aids")
# shellcheck disable=SC2086 # the list of aids, one file name each
aid_files=$(files_of $aids)
candidate=""
for c in $(grep -L '^Upstream-Status: Inappropriate' "$KERNEL_PATCHES"/[0-9]*.patch | tac); do
	if ! comm -12 <(files_of "$c") <(echo "$aid_files") | grep -q .; then
		candidate=$(basename "$c")
		break
	fi
done
[ -n "$candidate" ] || die "every upstream candidate touches a file an aid touches" "tests/host/10-patches.sh needs a candidate it can move after an aid"
sed -i "/^$candidate\$/d" "$tmp/kernel-patches/series"
sed -i "/^$(basename "$aid")\$/a $candidate" "$tmp/kernel-patches/series"
KERNEL_PATCHES=$tmp/kernel-patches ARCH_UM_PATCHES=$tmp/arch-um-patches \
	"$TOP/scripts/host/check-patches.sh" >"$tmp/out" 2>&1 && rc=0 || rc=$?
if [ "$rc" -ne 0 ]; then
	expect "patches: a patch that does not apply is named with its rejected file" "$tmp/out" \
		"patch .*$bad does not apply" "rejected file\(s\): Makefile"
	expect "patches: an upstream candidate after an aid is named" "$tmp/out" \
		"FAIL .*$candidate is an upstream candidate after the aid"
else
	fail "patches: a patch that does not apply is named with its rejected file (check passed)" "$tmp/out"
	fail "patches: an upstream candidate after an aid is named (check passed)" "$tmp/out"
fi
rm -rf "$tmp" "$(dirname "$out")"

# A patch that applies but breaks the coding style is refused by checkpatch.
tmp=$(scratch)
mkdir "$tmp/kernel-patches" "$tmp/arch-um-patches"
echo "# empty" >"$tmp/arch-um-patches/series"
bad=0001-kernel-Add-a-badly-styled-file.patch
{
	printf 'From: %s <%s>\nSubject: [PATCH] kernel: Add a badly styled file\n\n' "$PROJECT_NAME" "$PROJECT_EMAIL"
	printf 'A test fixture.\n\nUpstream-Status: Inappropriate [test]\nSigned-off-by: %s <%s>\n---\n' "$PROJECT_NAME" "$PROJECT_EMAIL"
	printf -- '--- /dev/null\n+++ b/kernel/todo_style_fixture.c\n@@ -0,0 +1,6 @@\n'
	printf '+// SPDX-License-Identifier: GPL-2.0\n+int todo_style_fixture(int x)\n+{\n'
	printf '+\tif(x)\n+\t\treturn 1;\n+\treturn 0;}\n'
} >"$tmp/kernel-patches/$bad"
echo "$bad" >"$tmp/kernel-patches/series"
KERNEL_PATCHES=$tmp/kernel-patches ARCH_UM_PATCHES=$tmp/arch-um-patches \
	"$TOP/scripts/host/check-patches.sh" >"$tmp/out" 2>&1 && rc=0 || rc=$?
if [ "$rc" -ne 0 ]; then
	expect "patches: a patch that breaks checkpatch --strict is named" "$tmp/out" \
		"FAIL .*$bad: checkpatch.pl --strict is not clean"
else
	fail "patches: a patch that breaks checkpatch --strict is named (check passed)" "$tmp/out"
fi
rm -rf "$tmp"
