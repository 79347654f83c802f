#!/usr/bin/env bash
# Every libcudart symbol a test program imports must be exported by simtlab's libcudart.so.13
# (otherwise the program would die with "symbol lookup error"), with the right version node.
# Usage: check_exports.sh LIBCUDART PROGRAM...
set -eu
lib=$1; shift
exports=$(nm -D --defined-only "$lib" | awk '{print $3}' | sed 's/@@*libcudart.so.13//' | sort -u)
readelf -V "$lib" | grep -q "Name: libcudart.so.13" || { echo "FAIL: no libcudart.so.13 version node"; exit 1; }
missing=0; checked=0
for p in "$@"; do
  for s in $(nm -D --undefined-only "$p" | awk '/@libcudart/ {print $2}' | sed 's/@libcudart.so.13//'); do
    checked=$((checked + 1))
    if ! grep -qx "$s" <<< "$exports"; then echo "FAIL: $p imports $s, which libcudart.so.13 does not export"; missing=1; fi
  done
done
[ $missing -eq 0 ] && echo "exports OK: $checked imports of $# programs resolved"
exit $missing
