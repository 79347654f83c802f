#!/usr/bin/env bash
# `simtlab report` in a real browser: a small sweep (two workloads x three schedulers), its HTML
# report opened in headless Chromium; every figure must render (an SVG with a non-empty box and
# shapes, counted by the page's own script), no script error, no network request (the file is
# self-contained), and the same sweep gives the same report byte for byte. A screenshot is kept
# as a test artifact: ARTIFACT_DIR/report.png.
# Usage: report_browser.sh SIMTLAB WORKLOAD_BIN_DIR ARTIFACT_DIR
set -u
sim=$1; bins=$2; art=$3
chromium=$(command -v chromium || command -v chromium-browser) ||
  { echo "FAIL: chromium not installed (make deps installs it)" >&2; exit 1; }
d=$(mktemp -d /tmp/simtlab-report-XXXXXX)
trap 'rm -rf "$d"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
cat > "$d/exp.yaml" <<EOT
experiment: report_test
description: "two workloads under three warp schedulers"
gpu: fermi-c2050
workloads:
  - workload: vectoradd
  - {name: vectoradd_small, command: [$bins/vectoradd, "6000"]}
baseline: lrr
variants:
  lrr: {set: [sm.scheduler=lrr]}
  gto: {set: [sm.scheduler=gto]}
  two_level: {set: [sm.scheduler=two_level]}
EOT
"$sim" sweep run "$d/exp.yaml" --out "$d/out" -j 2 --no-build --bin-dir "$bins" 2>/dev/null || fail "sweep"
"$sim" report "$d/out" || fail "report"
"$sim" report "$d/out" -o "$d/again.html" 2>/dev/null || fail "report again"
cmp "$d/out/report.html" "$d/again.html" || fail "the report is not deterministic"
grep -q 'src="http\|href="http\|<script src' "$d/out/report.html" && fail "the report references the network"
flags=(--headless --no-sandbox --disable-gpu --no-first-run --hide-scrollbars
       --user-data-dir="$d/profile" --virtual-time-budget=5000)
timeout 120 "$chromium" "${flags[@]}" --enable-logging=stderr --v=0 --dump-dom \
  "file://$d/out/report.html" > "$d/dom.html" 2> "$d/chromium.log" || fail "chromium --dump-dom: $(tail -5 "$d/chromium.log")"
body=$(grep -o '<body[^>]*>' "$d/dom.html")
echo "$body"
expected=$(sed -n 's/.*data-expected-figures="\([0-9]*\)".*/\1/p' <<< "$body")
rendered=$(sed -n 's/.*data-figures="\([0-9]*\)".*/\1/p' <<< "$body")
[ -n "$expected" ] && [ "$expected" -ge 4 ] || fail "expected at least 4 figures, the report has '$expected'"
[ "$rendered" = "$expected" ] || fail "$rendered of $expected figures rendered"
grep -q 'data-errors=""' <<< "$body" || fail "script errors: $body"
grep -i 'Uncaught\|CONSOLE.*error' "$d/chromium.log" && fail "console errors in the page"
mkdir -p "$art"
timeout 120 "$chromium" "${flags[@]}" --window-size=1200,2600 --screenshot="$art/report.png" \
  "file://$d/out/report.html" 2>> "$d/chromium.log" || fail "screenshot"
[ -s "$art/report.png" ] || fail "empty screenshot"
echo "report: $rendered figures rendered; screenshot $art/report.png"
