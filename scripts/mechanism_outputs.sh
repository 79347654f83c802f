#!/bin/bash
# Every test program must give the same exit code and stdout with each SM mechanism on as
# with all off (issue #23). Usage: scripts/mechanism_outputs.sh /work/main/build/tests/programs
S=${SIMTLAB:-build/bin/simtlab}
D=${1:?usage: mechanism_outputs.sh PROGRAMS_DIR}
W=$(mktemp -d); S=$(realpath $S); D=$(realpath $D); cd $W
fail=0
for p in $(ls $D | grep '^prog_'); do
  [ -x $D/$p ] || continue
  timeout 300 $S run --mode timing -- $D/$p > off.out 2>/dev/null; off=$?
  for s in ccws.enable=true swl.warps=8 dyncta.enable=true; do
    timeout 300 $S run --mode timing --set $s -- $D/$p > on.out 2>/dev/null; on=$?
    if [ $on != $off ] || ! cmp -s off.out on.out; then echo "DIFF $p $s rc $off -> $on"; fail=1; else echo "same $p $s rc $on"; fi
  done
done
rm -rf $W
exit $fail
