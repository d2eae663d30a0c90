#!/usr/bin/env bash
# Runs on a lent 16-core machine from .dev/ (scripts/device/pack.sh): the collective table
# of tests/c/coll_model.c on 4, 8 and 16 ranks, a core per rank, under Open MPI (the
# machine's own; fixed rules and every collective forced linear) and MPICH (carried), the
# shim's calibration with its concurrent exchange; then the copies-at-once bench. The
# reports and outputs come back as $OUT/r.tgz; `loggp show` or `loggp refit` reads them.
set -u
cd "$(dirname "$0")"
R=$OUT/r; mkdir -p "$R"
tar xzf mpich.tgz -C /
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
om() { timeout 120 mpirun --bind-to core -np "$@"; }
mp() { LD_LIBRARY_PATH=/opt/dmpich/lib timeout 120 /opt/dmpich/bin/mpiexec.hydra -bind-to core -n "$@"; }
S=$PWD/shim
lin="-x OMPI_MCA_coll_tuned_use_dynamic_rules=1"
for c in allreduce bcast allgather alltoall; do lin="$lin -x OMPI_MCA_coll_tuned_${c}_algorithm=1"; done
for job in 16-default-a 16-linear-a 8-default-a 8-linear-a 4-default-a 4-default-b 16-default-b 8-default-b; do
  np=${job%%-*}; set=$(echo "$job" | cut -d- -f2)
  x=""; [ "$set" = linear ] && x=$lin
  echo "== Open MPI $job"
  # shellcheck disable=SC2086
  om "$np" -x LD_PRELOAD="$S/openmpi/libloggp.so" -x LOGGP_VERBOSE=1 -x LOGGP_REPORT="$R/om$job.json" $x \
    bin/coll_model-openmpi all 8,4096,262144 300 ref > "$R/om$job.out" 2> "$R/om$job.err"
  echo "rc $?"
done
for job in 16-default-a 8-default-a 4-default-a 16-default-b; do
  np=${job%%-*}
  echo "== MPICH $job"
  mp "$np" -genv LD_PRELOAD "$S/mpich/libloggp.so" -genv LOGGP_VERBOSE 1 -genv LOGGP_REPORT "$R/mp$job.json" \
    bin/coll_model-mpich all 8,4096,262144 300 ref > "$R/mp$job.out" 2> "$R/mp$job.err"
  echo "rc $?"
done
for np in 8 16; do echo "== copies at once, Open MPI, $np ranks"; om "$np" bin/cc-openmpi 40; done
tar czf "$OUT/r.tgz" -C "$OUT" r && rm -rf "$R"
echo "== done"
