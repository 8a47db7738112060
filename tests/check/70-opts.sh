#!/usr/bin/env bash
# opts_parse (scripts/host/lib/opts.sh), the option parser of every host
# script: each kind of option sets the caller's variable, defaults stay
# where no option is given, and every mistake dies with a message that
# names the script and where its usage is.  No kernel, no boot.
. "$(dirname "$0")/../host/lib.sh"
. "$(dirname "$0")/../../scripts/host/lib/opts.sh"

tmp=$(scratch)
SPEC='flavour:flavour timeout:number rw:flag cwd:dir
	kernel-arg:list freezer:todo|classic pm-test @tests -- cmd'

# parsed ARG...: the variables SPEC sets from ARG..., one per line, as a
# function's locals with their defaults.
parsed() {
	local flavour=run timeout=300 rw=0 cwd=$PWD kernel_arg=() freezer="" pm_test=freezer tests=() cmd=()
	opts_parse "$SPEC" "$@"
	printf '%s\n' "flavour=$flavour" "timeout=$timeout" "rw=$rw" "cwd=$cwd" "freezer=$freezer" \
		"pm_test=$pm_test" "kernel_arg=${kernel_arg[*]}" "tests=${tests[*]}" "cmd=$(printf '[%s]' "${cmd[@]}")"
}

# check NAME WANT-FILE ARG...: pass when "parsed ARG..." prints WANT-FILE.
check() {
	local name=$1 want=$2
	shift 2
	if parsed "$@" >"$tmp/got" 2>&1 && diff -u "$want" "$tmp/got" >"$tmp/diff"; then
		pass "$name"
	else
		fail "$name" "$tmp/diff"
	fi
}

printf '%s\n' flavour=run timeout=300 rw=0 "cwd=$PWD" freezer= pm_test=freezer kernel_arg= tests= 'cmd=[]' >"$tmp/want"
check "check: opts: no options: every default stays" "$tmp/want"

mkdir -p "$tmp/dir"
printf '%s\n' flavour=test timeout=900 rw=1 "cwd=$tmp/dir" freezer=classic pm_test=none \
	'kernel_arg=a=1 b=2' 'tests=30-boot 40-guest-suite' 'cmd=[echo][two  words][--rw]' >"$tmp/want"
check "check: opts: every kind sets the caller's variable; words after -- are the command's, options too" "$tmp/want" \
	30-boot --flavour test --timeout 900 --rw --cwd "$tmp/dir/." --kernel-arg a=1 --freezer classic \
	40-guest-suite --kernel-arg b=2 --pm-test none -- echo 'two  words' --rw

printf '%s\n' flavour=run timeout=5 rw=0 "cwd=$PWD" freezer= pm_test=freezer kernel_arg= tests= "cmd=[echo \$HOME; exit 7]" >"$tmp/want"
# shellcheck disable=SC2016 # the guest's shell expands it, not this one
check "check: opts: the last of an option given twice wins; one word after -- is one command line" "$tmp/want" \
	--timeout 60 --timeout 5 -- 'echo $HOME; exit 7'

# A global, as a script's top level has them.
nested() { opts_parse 'job' --job idle; }
job=run
nested
name="check: opts: a variable the caller did not make local is the global"
if [ "$job" = idle ]; then pass "$name"; else fail "$name (job=$job)"; fi

# dies NAME PATTERN... -- ARG...: "parsed ARG..." fails, printing a line
# matching each extended regex.
dies() {
	local name=$1 pats=()
	shift
	while [ "$1" != -- ]; do pats+=("$1"); shift; done
	shift
	if (parsed "$@") >"$tmp/err" 2>&1; then
		fail "$name (it did not fail)" "$tmp/err"
	else
		expect "$name" "$tmp/err" "${pats[@]}"
	fi
}
usage_line='^  its usage: tests/check/70-opts\.sh --help$'
dies "check: opts: an unknown option is named, with where the usage is" \
	"error: tests/check/70-opts\.sh: unknown option '--time-out'\$" "$usage_line" -- --time-out 5
dies "check: opts: an option without its value" "error: .*: --timeout needs a value\$" "$usage_line" -- --timeout
dies "check: opts: a number that is none" "error: .*: --timeout takes a whole number above 0, not '5s'\$" -- --timeout 5s
dies "check: opts: zero is no time limit" "error: .*: --timeout takes a whole number above 0, not '0'\$" -- --timeout 0
dies "check: opts: a choice outside its list" "error: .*: --freezer takes todo, classic, not 'both'\$" -- --freezer both
dies "check: opts: a directory that is not there" "error: .*: --cwd: no directory '$tmp/none'\$" -- --cwd "$tmp/none"
dies "check: opts: an unknown flavour names the flavours" "error: unknown flavour 'smp2'\$" '^  use one of: run test ' -- --flavour smp2

# No bare words, no "--" in its spec.
strict() { local flavour=run; opts_parse 'flavour:flavour' "$@"; }
name="check: opts: words a script does not take are refused, before and after --"
{ (strict 30-boot) || true; (strict -- echo) || true; } >"$tmp/strict" 2>&1
expect "$name" "$tmp/strict" "error: .*: unknown argument '30-boot'\$" "error: .*: takes no words after --, got: echo\$"

# In a library function the message names the function and its file.
cat >"$tmp/lib.sh" <<'EOF'
# libfn --job JOB: for the check.
libfn() { local job=run; opts_parse 'job' "$@"; }
EOF
# shellcheck source=/dev/null
. "$tmp/lib.sh"
name="check: opts: from a library function, the message names the function and its comment"
(libfn --jobs x) >"$tmp/libfn" 2>&1 || true
expect "$name" "$tmp/libfn" "error: tests/check/70-opts\.sh: libfn: unknown option '--jobs'\$" \
	"^  its usage: the comment above libfn in ${tmp#"$TOP"/}/lib\.sh\$"

name="check: opts: -h anywhere prints the script's usage and exits 0"
if (parsed --timeout 5 -h) >"$tmp/help" 2>&1; then
	expect "$name" "$tmp/help" '^opts_parse \(scripts/host/lib/opts\.sh\), the option parser'
else
	fail "$name (exit status not 0)" "$tmp/help"
fi
rm -rf "$tmp"
