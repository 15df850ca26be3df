#!/bin/sh
# Install the Debian packages ringside needs (root on Debian/Ubuntu), or
# print the exact list. Usage: tools/deps.sh PKG...
set -eu
missing=""
for p in "$@"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing="$missing $p"
done
if [ -z "$missing" ]; then
	echo "deps: all packages present"
	exit 0
fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
	echo "deps: installing$missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends $missing
else
	echo "deps: missing packages:$missing"
	echo "deps: run as root: apt-get update && apt-get install$missing"
	exit 1
fi
