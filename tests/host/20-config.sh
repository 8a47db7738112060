#!/usr/bin/env bash
# A fragment asking for an option that does not exist is refused by name.
. "$(dirname "$0")/lib.sh"

tmp=$(scratch)
mkdir "$tmp/configs"
cp "$TOP/configs/base.config" "$tmp/configs/"
printf '# Test: an option no kernel has.\nCONFIG_TODO_NO_SUCH_OPTION=y\n' >>"$tmp/configs/base.config"
CONFIGS=$tmp/configs OBJ_DIR=$tmp/obj "$TOP/scripts/host/config.sh" --flavour run >"$tmp/out" 2>&1 && rc=0 || rc=$?
if [ "$rc" -ne 0 ]; then
	expect "config: an unknown option is named with its fragment" "$tmp/out" \
		"CONFIG_TODO_NO_SUCH_OPTION=y requested by .*base.config" "no such option"
else
	fail "config: an unknown option is named with its fragment (config passed)" "$tmp/out"
fi
rm -rf "$tmp"
