#!/bin/bash
# The README's embedding example builds against an installed libringside
# through pkg-config, statically and shared, and runs.
. "$(dirname "$0")/../lib.sh"
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT

if ! make -s install OUT="$OUT" PREFIX=/usr DESTDIR="$stage" >"$stage/log" 2>&1; then
	fail install "$(tail -3 "$stage/log")"
	exit 0
fi
pass install
for f in usr/bin/ringside usr/lib/libringside.a usr/lib/libringside.so.0 usr/include/ringside/ringside.h \
	usr/include/ringside/events.h usr/include/ringside/metrics.h usr/include/ringside/json.h \
	usr/lib/pkgconfig/ringside.pc usr/share/man/man1/ringside.1 usr/lib/systemd/system/ringside.service; do
	[ -e "$stage/$f" ] || { fail install_layout "missing $f"; exit 0; }
done
pass install_layout
grep -q '^ExecStart=/usr/bin/ringside agent' "$stage/usr/lib/systemd/system/ringside.service" &&
	pass install_systemd_unit_path || fail install_systemd_unit_path "$(grep ExecStart "$stage/usr/lib/systemd/system/ringside.service")"
# The shared library's ABI is its ringside_* functions: nothing else exported.
others=$(nm -D --defined-only "$stage/usr/lib/libringside.so.0" | awk '$3 !~ /^ringside_/ { print $3 }')
[ -z "$others" ] && pass so_exports_only_ringside ||
	fail so_exports_only_ringside "$(echo $others | cut -c1-200)"

export PKG_CONFIG_SYSROOT_DIR=$stage PKG_CONFIG_PATH=$stage/usr/lib/pkgconfig
cflags=$(pkg-config --cflags ringside) && libs=$(pkg-config --libs ringside) || { fail pkgconfig "pkg-config failed"; exit 0; }
if cc ${SANFLAGS:-} -Wall -Werror $cflags examples/embed.c -o "$stage/embed-shared" $libs -Wl,-rpath,"$stage/usr/lib" 2>"$stage/cc.log"; then
	pass example_builds_shared
else
	fail example_builds_shared "$(head -5 "$stage/cc.log")"
fi
# The agent-side example (the guests run it statically linked): the public headers it needs.
if cc ${SANFLAGS:-} -Wall -Wextra -Werror $cflags examples/collector_metrics.c -o "$stage/collector_metrics" $libs \
	-Wl,-rpath,"$stage/usr/lib" 2>"$stage/cc.log"; then
	pass example_collector_metrics_builds
else
	fail example_collector_metrics_builds "$(head -5 "$stage/cc.log")"
fi
if cc ${SANFLAGS:-} -Wall -Werror $cflags examples/embed.c -o "$stage/embed-static" "$stage/usr/lib/libringside.a" \
	$(pkg-config --libs --static ringside | sed 's/-lringside//') 2>"$stage/cc.log"; then
	pass example_builds_static
else
	fail example_builds_static "$(head -5 "$stage/cc.log")"
fi
if [ "$(id -u)" = 0 ]; then
	for v in shared static; do
		out=$("$stage/embed-$v" 2>&1) && grep -q '^main is in .*embed-'$v <<<"$out" &&
			pass "example_runs_$v" || fail "example_runs_$v" "$out"
	done
else
	skip example_runs "needs root for the feature probe's BPF lines"
fi
