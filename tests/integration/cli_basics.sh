#!/bin/bash
# CLI conventions: help, version, unknown commands and flags, one-line errors.
. "$(dirname "$0")/../lib.sh"

out=$("$RINGSIDE" --help) && grep -q '^Usage: ringside COMMAND' <<<"$out" && pass help || fail help "no usage"
out=$("$RINGSIDE" --version) && grep -qE '^ringside [0-9.]+ \(event ABI [0-9]+\)$' <<<"$out" &&
	pass version || fail version "got: $out"

err=$("$RINGSIDE" frobnicate 2>&1); rc=$?
[ "$rc" = 2 ] && [ "$(wc -l <<<"$err")" = 1 ] && grep -q "unknown command 'frobnicate'" <<<"$err" &&
	pass unknown_command || fail unknown_command "rc=$rc: $err"

err=$("$RINGSIDE" features --bogus 2>&1); rc=$?
[ "$rc" = 2 ] && grep -q 'bogus' <<<"$err" && pass unknown_flag || fail unknown_flag "rc=$rc: $err"

err=$("$RINGSIDE" 2>&1); rc=$?
[ "$rc" = 2 ] && pass no_command || fail no_command "rc=$rc"

for cmd in features maps sym gcm btrfs reclaim agent cleanup; do
	out=$("$RINGSIDE" $cmd --help) && grep -q "^Usage: ringside $cmd" <<<"$out" &&
		pass "help_$cmd" || fail "help_$cmd" "no usage"
done
# One option, one meaning: no --help lists an option twice.
for cmd in features maps sym gcm btrfs reclaim agent cleanup "reclaim profile"; do
	# shellcheck disable=SC2086
	twice=$("$RINGSIDE" $cmd --help | grep -oE '^ +(-[a-zA-Z], )?--[a-z][a-z.-]+' | sed 's/.*--/--/' | sort | uniq -d)
	[ -z "$twice" ] && pass "help_options_once_${cmd// /_}" || fail "help_options_once_${cmd// /_}" "listed twice: $twice"
done

# Every command in --help has a section in the man page, and vice versa.
cmds=$("$RINGSIDE" --help | awk '/^Commands:/{f=1;next} f&&/^  [a-z]/{print $1} /^$/{if(f)exit}')
missing=""
for c in $cmds; do grep -q "^\.SS \"*$c" man/ringside.1 || missing="$missing $c"; done
[ -z "$missing" ] && pass man_page_in_step || fail man_page_in_step "not in man/ringside.1:$missing"

# Every option of every command's getopt table (the source of truth, listed
# by the hidden --list-options) is in its --help, and in its man page section
# or the man page's COMMON OPTIONS; and every option --help shows is in the
# table (a documented option that does not parse fails here).
for cmd in features maps sym gcm btrfs "btrfs threshold" reclaim "reclaim profile" agent; do
	name=${cmd// /_}
	# shellcheck disable=SC2086
	table=$("$RINGSIDE" $cmd --list-options | grep -vx -- '--help')
	# shellcheck disable=SC2086
	help=$("$RINGSIDE" $cmd --help)
	section=$(awk -v c="$cmd" '
		/^\.SS / { s = $0; sub(/^\.SS "?/, "", s); on = (index(s, c " ") == 1 || s == c || s == c "\"") &&
			   !(c !~ / / && s ~ ("^" c " (threshold|profile)")) }
		/^\.SH / { on = 0; common = ($0 ~ /COMMON OPTIONS/) }
		on || common' man/ringside.1 | sed 's/\\-/-/g')
	missing_help="" missing_man="" undocumented=""
	for o in $table; do
		grep -qE -- "(^|[^a-z-])$o([^a-z-]|$)" <<<"$help" || missing_help="$missing_help $o"
		grep -qE -- "(^|[^a-z-])$o([^a-z-]|$)" <<<"$section" || missing_man="$missing_man $o"
	done
	for o in $(grep -oE -- '^ +(-[a-zA-Z], )?--[a-z][a-z.-]+' <<<"$help" | sed 's/.*--/--/' | sort -u); do
		grep -qx -- "$o" <<<"$table"$'\n--help' || undocumented="$undocumented $o"
	done
	[ -z "$missing_help$missing_man$undocumented" ] && pass "options_in_step_$name" ||
		fail "options_in_step_$name" "not in --help:$missing_help; not in man page:$missing_man; in --help but not parsed:$undocumented"
done
