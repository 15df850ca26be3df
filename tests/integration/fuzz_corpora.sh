#!/bin/bash
# Replay every fuzz target's seed corpus and every crash ever found (kept as
# regressions) under libFuzzer with ASan+UBSan: each input runs once and must
# not crash, leak or trip a sanitizer. `make fuzz` explores further.
. "$(dirname "$0")/../lib.sh"
fuzz_out=$RS_ROOT/build-fuzz
n=0
for src in "$RS_ROOT"/tests/fuzz/fuzz_*.c; do
	name=$(basename "$src" .c)
	target=${name#fuzz_}
	bin=$fuzz_out/$name
	if [ ! -x "$bin" ]; then
		skip "$name" "not built (make fuzz-build; plain make check builds it)"
		continue
	fi
	dirs=()
	for d in "$RS_ROOT/tests/fuzz/corpus/$target" "$RS_ROOT/tests/fuzz/crashes/$target"; do
		[ -d "$d" ] && [ -n "$(ls -A "$d")" ] && dirs+=("$d")
	done
	out=$("$bin" -runs=0 -close_fd_mask=3 "${dirs[@]}" 2>&1); rc=$?
	files=$(ls "${dirs[@]}" | grep -vc ':$')
	[ "$rc" = 0 ] && pass "${name}_replays_corpus ($files inputs)" ||
		fail "${name}_replays_corpus" "rc=$rc: $(grep -m1 -E 'ERROR|SUMMARY|runtime error' <<<"$out")"
	n=$((n + 1))
done
[ "$n" -gt 0 ] || skip fuzz_corpora "no fuzz target built"
