#!/usr/bin/env bash
# Golden outputs of `simtlab ptx check/dump/cfg` (tests/golden/ptx/MANIFEST lists them).
#
#   tests/scripts/ptx_golden.sh --check  SIMTLAB [STEM...]   compare byte for byte (CTest)
#   tests/scripts/ptx_golden.sh --update SIMTLAB [STEM...]   regenerate the golden files
#
# STEM limits the run to golden files named STEM.*. Commands run from the repository root, so
# the paths printed by simtlab are the relative ones in MANIFEST. After --update, review every
# change by hand (git diff): the CFG goldens encode hand-derived reconvergence points
# (tests/golden/ptx/README.md).
set -euo pipefail
if [[ $# -lt 2 || ( "$1" != --check && "$1" != --update ) ]]; then
  sed -n '2,10p' "$0" >&2
  exit 2
fi
mode=$1
simtlab=$(realpath "$2")
shift 2
stems=("$@")
cd "$(dirname "$0")/../.."
gdir=tests/golden/ptx
passed=0
failed=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
while read -r golden args; do
  [[ -z "$golden" || "$golden" == \#* ]] && continue
  if [[ ${#stems[@]} -gt 0 ]]; then
    keep=0
    for s in "${stems[@]}"; do [[ "$golden" == "$s".* ]] && keep=1; done
    [[ $keep == 1 ]] || continue
  fi
  # shellcheck disable=SC2086  # arguments are whitespace-separated words by design
  if ! "$simtlab" $args >"$tmp/out" 2>"$tmp/err"; then
    echo "FAIL $golden: 'simtlab $args' exited with an error:"
    cat "$tmp/err"
    failed=$((failed + 1))
    continue
  fi
  if [[ $mode == --update ]]; then
    cp "$tmp/out" "$gdir/$golden"
    echo "updated $gdir/$golden"
    passed=$((passed + 1))
  elif [[ ! -f "$gdir/$golden" ]]; then
    echo "FAIL $golden: missing (run tests/scripts/ptx_golden.sh --update)"
    failed=$((failed + 1))
  elif cmp -s "$tmp/out" "$gdir/$golden"; then
    echo "ok   $golden"
    passed=$((passed + 1))
  else
    echo "FAIL $golden: output of 'simtlab $args' differs:"
    diff -u "$gdir/$golden" "$tmp/out" | head -60 || true
    failed=$((failed + 1))
  fi
done <"$gdir/MANIFEST"
if [[ $((passed + failed)) -eq 0 ]]; then
  echo "no golden files matched"
  exit 1
fi
echo "golden: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
