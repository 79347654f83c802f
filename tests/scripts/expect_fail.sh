#!/usr/bin/env bash
# Run a command that must fail with exit status 1 and print every given substring on stderr.
# Usage: expect_fail.sh "substring1|substring2" CMD [ARGS...]
set -u
want=$1; shift
err=$("$@" 2>&1 >/dev/null)
status=$?
echo "$err"
if [ $status -ne 1 ]; then echo "FAIL: exit status $status, expected 1" >&2; exit 1; fi
IFS='|' read -ra parts <<< "$want"
for p in "${parts[@]}"; do
  if ! grep -qF -- "$p" <<< "$err"; then echo "FAIL: stderr lacks '$p'" >&2; exit 1; fi
done
exit 0
