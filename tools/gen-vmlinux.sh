#!/bin/sh
# Regenerate the CO-RE header from the running kernel's BTF.
# Usage: tools/gen-vmlinux.sh [BTF_FILE] [ARCH]
set -eu
btf=${1:-/sys/kernel/btf/vmlinux}
arch=${2:-x86}
here=$(cd "$(dirname "$0")/.." && pwd)
[ -r "$btf" ] || { echo "gen-vmlinux: $btf not readable: kernel built without CONFIG_DEBUG_INFO_BTF?" >&2; exit 1; }
mkdir -p "$here/vmlinux/$arch"
bpftool btf dump file "$btf" format c > "$here/vmlinux/$arch/vmlinux.h.tmp"
mv "$here/vmlinux/$arch/vmlinux.h.tmp" "$here/vmlinux/$arch/vmlinux.h"
echo "wrote vmlinux/$arch/vmlinux.h from $btf ($(uname -r))"
