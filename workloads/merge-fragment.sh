#!/usr/bin/env bash
# Append manifest fragments (workloads/manifest.d/*.yaml: list items of `workloads:`) to
# workloads/manifest.yaml and remove them. Used when workloads are written in parallel.
set -euo pipefail
cd "$(dirname "$0")"
for f in "$@"; do
  { echo; grep -v '^#' "$f"; } >> manifest.yaml
  git rm -q "$f" 2>/dev/null || rm -f "$f"
done
