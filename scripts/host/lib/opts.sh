# shellcheck shell=bash
# The one option parser of the host scripts and of the session API
# (session_start, whose command line is scripts/host/boot.sh).  A knob has
# one word at every level: make SPIN_MAX= is the script's --spin-max, which
# opts_parse puts in the script's variable spin_max.  The options are the
# only way in: no script reads its options from the environment (the
# Makefile passes each knob as an option), so a variable left in a shell
# cannot change a run behind the command line.  tests/check/70-opts.sh
# checks the parser, tests/check/71-knobs.sh that every script and the
# Makefile keep to it.
. "${BASH_SOURCE[0]%/*}/flavour.sh"

# opts_parse SPEC [ARG...]: set the caller's variables from ARG..., by
# SPEC, a list of words separated by white space, one per option:
#   NAME              --NAME VALUE sets the variable NAME (its dashes as
#                     underscores: --spin-max, spin_max)
#   NAME:flag         --NAME sets it to 1
#   NAME:number       --NAME N, N a whole number above 0 (seconds, cycles)
#   NAME:dir          --NAME DIR, an existing directory, made absolute
#   NAME:flavour      --NAME F, F a flavour of configs/flavours.mk
#   NAME:list         --NAME VALUE, again for more: appended to the array
#   NAME:A|B|C        --NAME VALUE, VALUE one of A, B, C
#   @NAME             every word that is no option: appended to the array
#   -- NAME           "--" ends the options; the words after it: the array
# The variables are the caller's, declared with their defaults before the
# call (local ones too: bash's dynamic scope reaches them from here; the
# parser's own all start with _o_).  -h or --help prints the script's
# usage and exits; anything SPEC does not name dies, saying where the
# usage is.
opts_parse() {
	local _o_spec=$1 _o_word _o_name _o_kind _o_var _o_val _o_rest="" _o_bare="" _o_i
	local -a _o_words
	local -A _o_kinds=()
	shift
	# -d '': a long SPEC may go on over lines (read then ends at its end: 1).
	read -ra _o_words -d '' <<<"$_o_spec" || true
	for ((_o_i = 0; _o_i < ${#_o_words[@]}; _o_i++)); do
		_o_word=${_o_words[_o_i]}
		case $_o_word in
		--) _o_i=$((_o_i + 1)) _o_rest=${_o_words[_o_i]:-} ;;
		@*) _o_bare=${_o_word#@} ;;
		*:*) _o_kinds[${_o_word%%:*}]=${_o_word#*:} ;;
		*) _o_kinds[$_o_word]=value ;;
		esac
	done
	while [ $# -gt 0 ]; do
		case $1 in
		-h | --help) usage "$0"; exit 0 ;;
		--)
			shift
			[ -n "$_o_rest" ] || opts_die "takes no words after --, got: $*"
			eval "$_o_rest=(\"\$@\")"
			return 0 ;;
		--?*)
			_o_name=${1#--}
			_o_kind=${_o_kinds[$_o_name]:-}
			[ -n "$_o_kind" ] || opts_die "unknown option '$1'"
			_o_var=${_o_name//-/_}
			if [ "$_o_kind" = flag ]; then
				printf -v "$_o_var" 1
				shift
				continue
			fi
			[ $# -ge 2 ] || opts_die "$1 needs a value"
			_o_val=$2
			shift 2
			case $_o_kind in
			value) ;;
			list) eval "$_o_var+=(\"\$_o_val\")"; continue ;;
			number) [[ $_o_val =~ ^[1-9][0-9]*$ ]] || opts_die "--$_o_name takes a whole number above 0, not '$_o_val'" ;;
			dir)
				_o_word=$_o_val
				_o_val=$(cd "$_o_word" 2>/dev/null && pwd) || opts_die "--$_o_name: no directory '$_o_word'" ;;
			flavour) flavour_fragments "$_o_val" >/dev/null ;;
			*) [[ "|$_o_kind|" == *"|$_o_val|"* ]] || opts_die "--$_o_name takes ${_o_kind//|/, }, not '$_o_val'" ;;
			esac
			printf -v "$_o_var" '%s' "$_o_val" ;;
		*)
			[ -n "$_o_bare" ] || opts_die "unknown argument '$1'"
			eval "$_o_bare+=(\"\$1\")"
			shift ;;
		esac
	done
}

# opts_die MESSAGE: die with MESSAGE, named by the script, or by the
# library function that called opts_parse, and where its usage is.
opts_die() {
	local script=${0#"$TOP"/} file=${BASH_SOURCE[2]:-$0}
	if [ "$file" -ef "$0" ]; then
		die "$script: $1" "its usage: $script --help"
	fi
	die "$script: ${FUNCNAME[2]}: $1" "its usage: the comment above ${FUNCNAME[2]} in ${file#"$TOP"/}"
}
