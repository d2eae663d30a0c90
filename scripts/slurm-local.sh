#!/usr/bin/env bash
# A single-node Slurm on this machine for the tests: munged, slurmctld and slurmd run as
# root from a private directory, with a minimal slurm.conf (no cgroups, no accounting).
# Usage: scripts/slurm-local.sh start DIR   (prints SLURM_CONF=DIR/slurm.conf when up)
#        scripts/slurm-local.sh stop DIR
# Exit status 3: Slurm or munge is not installed, or the daemons did not come up (the
# reason on stderr); the caller skips.
set -uo pipefail
cmd="${1:-}" dir="${2:-}"
[ -n "$cmd" ] && [ -n "$dir" ] || { echo "usage: $0 start|stop DIR" >&2; exit 2; }

stop() {
  for p in slurmd slurmctld munged; do
    [ -f "$dir/$p.pid" ] && kill "$(cat "$dir/$p.pid")" 2>/dev/null
  done
  sleep 0.5
  for p in slurmd slurmctld munged; do
    [ -f "$dir/$p.pid" ] && kill -9 "$(cat "$dir/$p.pid")" 2>/dev/null
    rm -f "$dir/$p.pid"
  done
  return 0
}

if [ "$cmd" = stop ]; then stop; exit 0; fi

for b in slurmctld slurmd srun sinfo munged mungekey; do
  command -v "$b" >/dev/null 2>&1 || { echo "slurm-local: $b not found (apt install slurm-wlm munge)" >&2; exit 3; }
done
mkdir -p "$dir"/{state,spool,munge}
dir="$(cd "$dir" && pwd)"
host="$(hostname -s)"
cpus="$(nproc)"

# munge: its own key, socket and pid file under DIR.
mungekey -c -f -k "$dir/munge/munge.key" >/dev/null 2>&1 || { echo "slurm-local: mungekey failed" >&2; exit 3; }
chmod 0400 "$dir/munge/munge.key"
munged --force -S "$dir/munge/socket" --key-file "$dir/munge/munge.key" \
  --pid-file "$dir/munged.pid" --log-file "$dir/munged.log" --seed-file "$dir/munge/seed" \
  || { echo "slurm-local: munged did not start ($(tail -1 "$dir/munged.log" 2>/dev/null))" >&2; exit 3; }

cat > "$dir/slurm.conf" <<EOF
ClusterName=loggp-test
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge/socket
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
SlurmctldPort=16817
SlurmdPort=16818
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
SlurmdTimeout=30
InactiveLimit=0
KillWait=2
NodeName=$host CPUs=$cpus State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE
EOF
export SLURM_CONF="$dir/slurm.conf"
slurmctld -f "$SLURM_CONF" -i >/dev/null 2>&1 || { echo "slurm-local: slurmctld did not start: $(tail -3 "$dir/slurmctld.log" 2>/dev/null)" >&2; stop; exit 3; }
slurmd -f "$SLURM_CONF" >/dev/null 2>&1 || { echo "slurm-local: slurmd did not start: $(tail -3 "$dir/slurmd.log" 2>/dev/null)" >&2; stop; exit 3; }
for _ in $(seq 1 60); do
  if sinfo -h -o '%t' 2>/dev/null | grep -qE '^(idle|mix|alloc)'; then
    echo "SLURM_CONF=$SLURM_CONF"
    exit 0
  fi
  sleep 0.5
done
echo "slurm-local: the node did not become idle in 30 s: $(sinfo -h 2>&1 | head -2); $(tail -2 "$dir/slurmd.log" 2>/dev/null)" >&2
stop
exit 3
