#!/usr/bin/env bash
# "make run": set everything up, build the run flavour and the initramfs,
# boot ./linux.  On a terminal the guest is a shell on that terminal (guest
# job "shell"; "exit" powers it off); otherwise, as in CI, the scripted job
# "run" shows the guest and powers it off.
. "$(dirname "$0")/lib.sh"

FLAVOUR=${FLAVOUR:-run}
"$TOP/scripts/deps.sh"
"$TOP/scripts/source.sh"
"$TOP/scripts/build.sh" "$FLAVOUR"
"$TOP/scripts/initramfs.sh"
if [ -t 0 ] && [ -t 1 ]; then
	stage "booting ./linux (flavour $FLAVOUR) with a shell on this terminal"
	check_tempdir
	mkdir -p "$BUILD/uml"
	cmd=("$(obj_dir "$FLAVOUR")/linux" mem=512M initrd="$BUILD/initramfs.cpio"
		uml_dir="$BUILD/uml" umid="todo-shell-$$" con=null ssl=null
		con0=fd:0,fd:1 guest=shell)
	show_cmd "${cmd[@]}"
	exec "${cmd[@]}"
fi
stage "booting ./linux (flavour $FLAVOUR)"
exec "$TOP/scripts/boot.sh" --flavour "$FLAVOUR" --job run --timeout "${TIMEOUT:-300}"
