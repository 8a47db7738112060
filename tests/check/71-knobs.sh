#!/usr/bin/env bash
# The one knob rule (issue 38), on the tree itself, no kernel: every host
# script parses its options with opts_parse (scripts/host/lib/opts.sh) and
# reads none of them from the environment; an option has one kind
# wherever it is taken; the Makefile passes make X= as the script's --x,
# an option that script takes; "make help" lists every knob once, and
# only knobs; a host test's time limit is $TIMEOUT, its own a
# "# timeout: S" line.
. "$(dirname "$0")/../host/lib.sh"

tmp=$(scratch)

# The specs, "FILE FUNCTION OPTION KIND" (FUNCTION: the one around the
# call, main at the top level; OPTION -- or @ for words, KIND their
# array), and the Makefile's options, "SCRIPT OPTION
# VARIABLE" (VARIABLE empty for a flag), from the recipes that run
# $(S)/SCRIPT.
python3 - "$TOP" "$tmp" <<'PY'
import glob, os, re, sys
top, tmp = sys.argv[1:]
with open(os.path.join(tmp, 'specs'), 'w') as out:
    for path in sorted(glob.glob(top + '/scripts/host/*.sh') + glob.glob(top + '/scripts/host/lib/*.sh')):
        text = open(path).read()
        for m in re.finditer(r"opts_parse '([^']*)'", text):
            before = text[:m.start()]
            funcs = re.findall(r'^(\w+)\(\) \{', before, re.M)
            # In a function unless a line that closes one came after its start.
            func = 'main'
            if funcs:
                start = before.rindex(funcs[-1] + '() {')
                if not re.search(r'^\}', before[start:], re.M):
                    func = funcs[-1]
            words = m.group(1).split()
            i = 0
            while i < len(words):
                w = words[i]
                # "-- NAME" and "@NAME": words, not options.
                if w == '--':
                    out.write('%s\t%s\t--\t%s\n' % (os.path.relpath(path, top), func, words[i + 1]))
                    i += 2
                    continue
                if w.startswith('@'):
                    out.write('%s\t%s\t@\t%s\n' % (os.path.relpath(path, top), func, w[1:]))
                    i += 1
                    continue
                name, _, kind = w.partition(':')
                out.write('%s\t%s\t%s\t%s\n' % (os.path.relpath(path, top), func, name, kind or 'value'))
                i += 1
make = open(top + '/Makefile').read().replace('\\\n', ' ')
with open(os.path.join(tmp, 'make-opts'), 'w') as out:
    for line in make.splitlines():
        m = re.match(r'\t@?\$\(S\)/([\w-]+)\.sh(.*)', line)
        if not m:
            continue
        script, rest = m.groups()
        for o in re.finditer(r'--([a-z][a-z0-9-]*)( [\'"]?\$\(([A-Z_]+)\)| \$\(call)?', rest):
            out.write('%s\t%s\t%s\n' % (script, o.group(1), o.group(3) or ''))
        # The flags: $(if $(X),--x)
        for o in re.finditer(r'\$\(if \$\(([A-Z_]+)\),--([a-z][a-z0-9-]*)\)', rest):
            out.write('%s\t%s\t%s\n' % (script, o.group(2), o.group(1)))
PY

name="check: knobs: every host script and library parses its options with opts_parse"
# A hand-made parser has case arms of options; base.sh's -h is help_if_asked.
grep -nE '^[[:space:]]*(-[a-z] \| )?--[a-z][a-z0-9-]*( \| --?[a-z][a-z0-9-]*)*\)' \
	"$TOP"/scripts/host/*.sh "$TOP"/scripts/host/lib/*.sh "$TOP"/tests/host/lib.sh |
	grep -v '/lib/opts\.sh:' | grep -v '/lib/base\.sh:.*-h | --help)' >"$tmp/parsers" || true
if [ -s "$tmp/parsers" ]; then fail "$name" "$tmp/parsers"; else pass "$name"; fi
[ -s "$tmp/specs" ] || fail "check: knobs: the specs are found" "$tmp/specs"

name="check: knobs: no script reads one of its options from the environment"
: >"$tmp/fallbacks"
while IFS=$'\t' read -r file _ opt _; do
	case $opt in -- | @) continue ;; esac
	var=$(tr 'a-z-' 'A-Z_' <<<"$opt")
	# Not in comments; $VAR or ${VAR...}, not $VAR_MORE.
	grep -nE "^[^#]*\\\$\\{?$var([^A-Za-z0-9_]|\$)" "$TOP/$file" | sed "s|^|$file:|" >>"$tmp/fallbacks" || true
done < <(sort -u -k1,1 -k3,3 "$tmp/specs")
if [ -s "$tmp/fallbacks" ]; then fail "$name" "$tmp/fallbacks"; else pass "$name"; fi

name="check: knobs: an option has one kind wherever it is taken (one meaning per name)"
awk -F'\t' '$3 != "--" && $3 != "@" { kinds[$3] = kinds[$3] (kinds[$3] ~ "(^| )" $4 "( |$)" ? "" : " " $4) ; where[$3] = where[$3] " " $1 }
	END { for (o in kinds) if (split(kinds[o], k, " ") > 1) print "--" o ":" kinds[o] " in" where[o] }' \
	"$tmp/specs" >"$tmp/kinds"
if [ -s "$tmp/kinds" ]; then fail "$name" "$tmp/kinds"; else pass "$name"; fi

name="check: knobs: the Makefile passes make X= as --x, an option of the script it runs"
: >"$tmp/make-bad"
while IFS=$'\t' read -r script opt var; do
	file=scripts/host/$script.sh
	# boot.sh hands its options to session_start.
	if [ "$script" = boot ]; then
		taken=$(awk -F'\t' -v o="$opt" '$2 == "session_start" && $3 == o' "$tmp/specs")
	else
		taken=$(awk -F'\t' -v f="$file" -v o="$opt" '$1 == f && $2 == "main" && $3 == o' "$tmp/specs")
	fi
	[ -n "$taken" ] || echo "make passes --$opt to $file, which does not take it" >>"$tmp/make-bad"
	[ -z "$var" ] || [ "$(tr 'A-Z_' 'a-z-' <<<"$var")" = "$opt" ] ||
		echo "make passes $var= to $file as --$opt: one word at every level is --$(tr 'A-Z_' 'a-z-' <<<"$var")" >>"$tmp/make-bad"
done <"$tmp/make-opts"
[ -s "$tmp/make-opts" ] || echo "no options found in the Makefile's recipes" >>"$tmp/make-bad"
if [ -s "$tmp/make-bad" ]; then fail "$name" "$tmp/make-bad"; else pass "$name"; fi

name="check: knobs: make help lists every knob once, and only knobs"
make -s --no-print-directory -C "$TOP" help >"$tmp/help"
# The knob list: from its heading to the rule after it; X= anywhere in
# make help is a knob named.
sed -n '/^# Knobs/,/^# A knob has one word/{/^# A knob has one word/!p}' "$tmp/help" >"$tmp/knob-list"
{
	# The knobs: what the recipes pass (CMD as -- CMD, TESTS and LOG as
	# words), and the backend's, read from the environment.
	cut -f3 "$tmp/make-opts" | grep .
	printf '%s\n' FLAVOUR CMD TESTS LOG SMP_CPUS SMP_ACCEL
} | sort -u >"$tmp/knobs"
: >"$tmp/help-bad"
while read -r var; do
	n=$({ grep -oE "(^|[^A-Z_])$var=" "$tmp/help" || true; } | wc -l)
	[ "$n" -eq 1 ] || echo "$var= is in make help $n times" >>"$tmp/help-bad"
	grep -qE "(^|[^A-Z_])$var=" "$tmp/knob-list" || echo "$var= is not in make help's knob list" >>"$tmp/help-bad"
	grep -qE "\\\$\\((value )?$var\\)" "$TOP/Makefile" || case $var in SMP_*) ;; *)
		echo "$var= is listed, but the Makefile does not use it" >>"$tmp/help-bad" ;; esac
done <"$tmp/knobs"
{ grep -oE '(^|[^A-Z_])[A-Z][A-Z_]*=' "$tmp/help" || true; } | grep -oE '[A-Z][A-Z_]*' | sort -u |
	comm -23 - "$tmp/knobs" | sed 's/$/= is in make help, but no recipe passes it/' >>"$tmp/help-bad"
[ -s "$tmp/knob-list" ] || echo "make help has no knob list (# Knobs ... # A knob has one word)" >>"$tmp/help-bad"
if [ -s "$tmp/help-bad" ]; then fail "$name" "$tmp/help-bad"; else pass "$name"; fi

name="check: knobs: a host test's time limit is \$TIMEOUT, its own a \"# timeout: S\" line"
{
	grep -nE '^# timeout:' "$TOP"/tests/host/*.sh | grep -vE ':# timeout: [1-9][0-9]*$' || true
	grep -nE '^[^#]*\$\{?[A-Z_]+_TIMEOUT([^A-Za-z0-9_]|$)' "$TOP"/tests/host/*.sh || true
} >"$tmp/timeouts"
if [ -s "$tmp/timeouts" ]; then fail "$name" "$tmp/timeouts"; else pass "$name"; fi
rm -rf "$tmp"
