#!/usr/bin/env bash
# Brings up a one-node Slurm cluster on localhost (munged, slurmctld and slurmd as the current
# user, with a configuration written here, on free ports), runs the experiment through it with
# `simtlab sweep run --backend slurm`, runs it again locally, and checks that both collected
# CSVs are byte-identical apart from the host-time columns (the last two). Tears it all down.
# Usage: slurm_sweep.sh SIMTLAB EXPERIMENT.yaml [EXTRA SWEEP ARGS...]
set -u
sim=$1; exp=$2; shift 2
for t in munged slurmctld slurmd sbatch squeue scontrol sinfo; do
  command -v "$t" >/dev/null || [ -x "/usr/sbin/$t" ] || { echo "FAIL: $t not installed (make deps installs slurm-wlm and munge)" >&2; exit 1; }
done
export PATH=$PATH:/usr/sbin
d=$(mktemp -d /tmp/simtlab-slurm-XXXXXX)
chmod 700 "$d"
mkdir -p "$d"/{state,spool,log,munge}
export SLURM_CONF=$d/slurm.conf
teardown() {
  scontrol shutdown >/dev/null 2>&1
  for _ in $(seq 50); do pgrep -f "$d/slurm.conf" >/dev/null || break; sleep 0.1; done
  [ -f "$d/slurmctld.pid" ] && kill "$(cat "$d/slurmctld.pid")" 2>/dev/null
  [ -f "$d/slurmd.pid" ] && kill "$(cat "$d/slurmd.pid")" 2>/dev/null
  munged -s -S "$d/munge/munge.socket" >/dev/null 2>&1
  rm -rf "$d"
}
trap teardown EXIT
fail() {
  echo "FAIL: $*" >&2
  for f in "$d"/log/*; do echo "== $f" >&2; tail -n 20 "$f" >&2; done
  exit 1
}

dd if=/dev/urandom bs=1 count=1024 of="$d/munge.key" 2>/dev/null
chmod 400 "$d/munge.key"
munged -f --key-file="$d/munge.key" -S "$d/munge/munge.socket" --log-file="$d/log/munged.log" \
  --pid-file="$d/munge/munged.pid" --seed-file="$d/munge/seed" || fail "munged did not start"

read -r p1 p2 < <(python3 -c 'import socket
s=[socket.socket() for _ in range(2)]
[x.bind(("127.0.0.1",0)) for x in s]
print(*[x.getsockname()[1] for x in s])')
host=$(hostname -s)
user=$(id -un)
cat > "$SLURM_CONF" <<EOT
ClusterName=simtlabtest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$p1
SlurmdPort=$p2
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$d/munge/munge.socket
SlurmUser=$user
SlurmdUser=$user
StateSaveLocation=$d/state
SlurmdSpoolDir=$d/spool
SlurmctldPidFile=$d/slurmctld.pid
SlurmdPidFile=$d/slurmd.pid
SlurmctldLogFile=$d/log/slurmctld.log
SlurmdLogFile=$d/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SwitchType=switch/none
MinJobAge=600
NodeName=$host NodeAddr=127.0.0.1 CPUs=$(nproc) RealMemory=$(( $(awk '/MemTotal/{print $2}' /proc/meminfo) / 1024 * 9 / 10 )) State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOT
slurmctld -f "$SLURM_CONF" || fail "slurmctld did not start"
slurmd -f "$SLURM_CONF" || fail "slurmd did not start"
for _ in $(seq 100); do
  sinfo -h -o %t 2>/dev/null | grep -q idle && break
  sleep 0.2
done
sinfo -h -o %t | grep -q idle || fail "the node never became idle: $(sinfo 2>&1)"

"$sim" sweep run "$exp" --backend slurm --out "$d/out-slurm" "$@" || fail "the Slurm sweep failed"
ls "$d"/out-slurm/slurm/attempt1.sh >/dev/null || fail "no job script"
"$sim" sweep run "$exp" --out "$d/out-local" -j "$(nproc)" "$@" || fail "the local sweep failed"
n=$(head -1 "$d/out-local/results.csv" | tr ',' '\n' | wc -l)
cut -d, -f1-$((n - 2)) "$d/out-local/results.csv" > "$d/local.csv"
cut -d, -f1-$((n - 2)) "$d/out-slurm/results.csv" > "$d/slurm.csv"
cmp "$d/local.csv" "$d/slurm.csv" || fail "the Slurm and local CSVs differ"
rows=$(($(wc -l < "$d/local.csv") - 1))
[ "$rows" -gt 0 ] || fail "no rows"
echo "slurm sweep: $rows rows, identical to the local sweep"
