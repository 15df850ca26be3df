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

for cmd in features maps sym gcm btrfs reclaim cleanup; do
	out=$("$RINGSIDE" $cmd --help) && grep -q "^Usage: ringside $cmd" <<<"$out" &&
		pass "help_$cmd" || fail "help_$cmd" "no usage"
done
# One option, one meaning: no --help lists an option twice.
for cmd in features maps sym gcm btrfs reclaim cleanup "reclaim profile"; do
	# shellcheck disable=SC2086
	twice=$("$RINGSIDE" $cmd --help | grep -oE '^ +(-[a-zA-Z], )?--[a-z-]+' | sed 's/.*--/--/' | sort | uniq -d)
	[ -z "$twice" ] && pass "help_options_once_${cmd// /_}" || fail "help_options_once_${cmd// /_}" "listed twice: $twice"
done

# Every command in --help has a section in the man page, and vice versa.
cmds=$("$RINGSIDE" --help | awk '/^Commands:/{f=1;next} f&&/^  [a-z]/{print $1} /^$/{if(f)exit}')
missing=""
for c in $cmds; do grep -q "^\.SS \"*$c" man/ringside.1 || missing="$missing $c"; done
[ -z "$missing" ] && pass man_page_in_step || fail man_page_in_step "not in man/ringside.1:$missing"
