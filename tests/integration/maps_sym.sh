#!/bin/bash
# `ringside maps` and `ringside sym` against real processes.
. "$(dirname "$0")/../lib.sh"

"$RS_PROGS/nopie_target" >"${TMPDIR:-/tmp}/rs-nopie.$$" &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -f "${TMPDIR:-/tmp}/rs-nopie.$$"' EXIT
for _ in $(seq 50); do [ -s "${TMPDIR:-/tmp}/rs-nopie.$$" ] && break; sleep 0.05; done
read -r alpha beta <"${TMPDIR:-/tmp}/rs-nopie.$$"

# maps: same VMAs as the kernel's text, in both modes.
out=$("$RINGSIDE" maps "$pid" --no-build-id) || { fail maps_runs "exit $?"; exit 0; }
pass maps_runs
want=$(awk '{print $1}' /proc/$pid/maps | sed 's/^0*//; s/-0*/-/' )
got=$(awk '{print $1}' <<<"$out" | sed 's/^0*//; s/-0*/-/')
[ "$want" = "$got" ] && pass maps_ranges_match_proc || fail maps_ranges_match_proc "$(diff <(echo "$want") <(echo "$got") | head -5)"
[ "$("$RINGSIDE" maps "$pid" --no-build-id --text)" = "$out" ] && pass maps_text_equals_ioctl ||
	fail maps_text_equals_ioctl "text and ioctl output differ"
grep -q 'nopie_target  [0-9a-f]\{40\}$' <<<"$("$RINGSIDE" maps "$pid" --file-only)" &&
	pass maps_build_ids || fail maps_build_ids "no 20-byte build ID on the binary's lines"
n_exec=$("$RINGSIDE" maps "$pid" --exec-only --no-build-id | awk '$2 !~ /x/' | wc -l)
[ "$n_exec" = 0 ] && pass maps_exec_only || fail maps_exec_only "$n_exec non-exec lines"
"$RINGSIDE" maps "$pid" --json | python3 -c 'import json,sys
rows=[json.loads(l) for l in sys.stdin]
assert rows and all(r["type"]=="vma" for r in rows)' && pass maps_json || fail maps_json "bad JSON"

# sym: known functions of the non-PIE binary, from argv and stdin.
out=$("$RINGSIDE" sym "$pid" "$alpha" "$(printf '%x' $((0x$beta + 1)))")
grep -q "^0x$alpha  .*nopie_target+0x[0-9a-f]*  nopie_alpha+0x0  ([0-9a-f]\{40\})$" <<<"$out" &&
	grep -q "nopie_beta+0x1 " <<<"$out" && pass sym_known_functions || fail sym_known_functions "$out"
out=$(printf '%s\n' "$alpha" | "$RINGSIDE" sym "$pid" --json)
python3 -c 'import json,sys; o=json.loads(sys.argv[1]); assert o["symbol"]=="nopie_alpha", o' "$out" &&
	pass sym_stdin_json || fail sym_stdin_json "$out"
out=$("$RINGSIDE" sym "$pid" 10 2>&1); rc=$?
[ "$rc" = 1 ] && grep -q 'not mapped' <<<"$out" && pass sym_unmapped || fail sym_unmapped "rc=$rc $out"

# Errors: one line, non-zero exit.
for case in "999999:no such process" "2:kernel thread" "abc:not a process id"; do
	arg=${case%%:*} msg=${case#*:}
	err=$("$RINGSIDE" sym "$arg" 1000 2>&1); rc=$?
	[ "$rc" != 0 ] && [ "$(wc -l <<<"$err")" = 1 ] && grep -q "$msg" <<<"$err" &&
		pass "sym_error_${arg}" || fail "sym_error_${arg}" "rc=$rc: $err"
done
# A zombie: its parent exec's into a sleep that never waits for it.
zfile=$(mktemp)
sh -c 'sleep 0.05 & echo $! >"$1"; exec sleep 30' sh "$zfile" & zparent=$!
wait_for "$zfile" '[0-9]'
zpid=$(cat "$zfile")
# Until the child has exited and become a zombie (state Z), 60 s at most.
for _ in $(seq 1200); do [ "$(awk '{print $3}' /proc/"$zpid"/stat 2>/dev/null)" = Z ] && break; sleep 0.05; done
err=$("$RINGSIDE" maps "$zpid" 2>&1); rc=$?
kill "$zparent" 2>/dev/null; wait "$zparent" 2>/dev/null; rm -f "$zfile"
[ "$rc" = 1 ] && grep -q zombie <<<"$err" && pass maps_error_zombie || fail maps_error_zombie "rc=$rc: $err"
