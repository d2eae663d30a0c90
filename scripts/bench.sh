#!/usr/bin/env bash
# The hot-path benchmark: added ns per intercepted call, with and without the shim in one
# run (MPI_X through the shim against PMPI_X beside it), for Open MPI and MPICH.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/mpi-env.sh
scripts/build.sh
d=$(mktemp -d)
mpicc.openmpi -O2 -o "$d/ovh-openmpi" bench/overhead.c
mpicc.mpich -O2 -o "$d/ovh-mpich" bench/overhead.c
echo "== Open MPI, shim preloaded"
mpirun.openmpi -np 2 -x LD_PRELOAD="$PWD/target/shim/openmpi/libloggp.so" -x LOGGP_VERBOSE=0 -x LOGGP_REPORT="$d/o.json" "$d/ovh-openmpi"
echo "== Open MPI, no shim (control: MPI_X and PMPI_X are the same call)"
mpirun.openmpi -np 2 "$d/ovh-openmpi"
echo "== MPICH, shim preloaded"
mpirun.mpich -n 2 -genv LD_PRELOAD "$PWD/target/shim/mpich/libloggp.so" -genv LOGGP_VERBOSE 0 -genv LOGGP_REPORT "$d/m.json" "$d/ovh-mpich"
echo "== MPICH, no shim"
mpirun.mpich -n 2 "$d/ovh-mpich"
# Instructions per intercepted call (valgrind's cachegrind, one rank): exact where the
# times above move with the machine. Each pattern at 100000 and 200000 iterations, with
# and without the shim; the added instructions per iteration over its calls. Open MPI
# only: an MPICH 4.0 singleton under valgrind spins (52 × 10^9 instructions for 100
# iterations, stopped after 120 s, with or without the shim).
if command -v valgrind >/dev/null 2>&1; then
  mpicc.openmpi -O2 -o "$d/ins-openmpi" bench/instructions.c
  count() { # which iterations preload
    LD_PRELOAD="$3" LOGGP_CALIBRATE=off LOGGP_REPORT="$d/ins.json" valgrind --tool=cachegrind \
      --cache-sim=no --cachegrind-out-file=/dev/null "$d/ins-openmpi" "$1" "$2" 2>&1 |
      sed -n 's/.*I *refs: *//p' | tr -d ,
  }
  shim="$PWD/target/shim/openmpi/libloggp.so"
  name=("MPI_Send to MPI_PROC_NULL" "MPI_Send + MPI_Recv to self" "MPI_Irecv + MPI_Isend + MPI_Waitall to self")
  calls=(1 2 3)
  echo "== instructions per intercepted call, Open MPI (cachegrind, 1 rank)"
  for which in 0 1 2; do
    n0=$(( $(count "$which" 200000 "") - $(count "$which" 100000 "") ))
    n1=$(( $(count "$which" 200000 "$shim") - $(count "$which" 100000 "$shim") ))
    awk -v a="$n0" -v b="$n1" -v c="${calls[$which]}" -v w="${name[$which]}" \
      'BEGIN { printf "%s: %.0f instructions per iteration without the shim, %.0f with; %.0f added per intercepted call\n", w, a/1e5, b/1e5, (b-a)/1e5/c }'
  done
else
  echo "== instructions per call: not counted (apt-get install valgrind)"
fi
# What a call costs after a pause away from MPI: the MPI's own (PMPI_) and with the shim (MPI_).
mpicc.openmpi -O2 -o "$d/ap-openmpi" bench/after_pause.c
mpicc.mpich -O2 -o "$d/ap-mpich" bench/after_pause.c
cc -O2 -o "$d/ap-raw" bench/after_pause_raw.c
echo "== an 8-byte round trip after a pause away from MPI (PMPI_, and MPI_ through the shim): Open MPI, MPICH, raw shared memory"
mpirun.openmpi -np 2 -x LD_PRELOAD="$PWD/target/shim/openmpi/libloggp.so" -x LOGGP_VERBOSE=0 -x LOGGP_CALIBRATE=off -x LOGGP_REPORT="$d/ap-o.json" "$d/ap-openmpi"
mpirun.mpich -n 2 -genv LD_PRELOAD "$PWD/target/shim/mpich/libloggp.so" -genv LOGGP_VERBOSE 0 -genv LOGGP_CALIBRATE off -genv LOGGP_REPORT "$d/ap-m.json" "$d/ap-mpich"
"$d/ap-raw"
echo "== loggp show of a 1024-rank report (built from tools/tests/fixtures/openmpi_demo.json)"
cargo run --release -q -p loggp-tools --example many_ranks -- tools/tests/fixtures/openmpi_demo.json 1024 "$d/r1024.json"
ls -l "$d/r1024.json" | awk '{printf "report: %.1f MB\n", $5/1e6}'
for i in 1 2 3 4 5; do
  /usr/bin/time -f "%e s, %M KiB max RSS" target/release/loggp show "$d/r1024.json" >/dev/null
done
rm -rf "$d"
