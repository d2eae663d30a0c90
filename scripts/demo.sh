#!/usr/bin/env bash
# The demo: installs what is missing, builds, runs a small MPI program under the shim with
# Open MPI and with MPICH, and prints a summary of each report.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
source scripts/mpi-env.sh
scripts/build.sh
out=$(mktemp -d)
for flavor in openmpi mpich; do
  if [ $flavor = openmpi ]; then cc=mpicc.openmpi; run="mpirun.openmpi -np 2 -x LD_PRELOAD=$PWD/target/shim/openmpi/libloggp.so -x LOGGP_REPORT=$out/demo-$flavor.json"
  else cc=mpicc.mpich; run="mpirun.mpich -n 2 -genv LD_PRELOAD $PWD/target/shim/mpich/libloggp.so -genv LOGGP_REPORT $out/demo-$flavor.json"; fi
  # GCC 12 reads MPICH's MPI_STATUSES_IGNORE ((MPI_Status *)1) as an array of size 0 and
  # warns at every MPI_Waitall: a false positive, silenced so the demo prints its report.
  $cc -O2 -Wno-stringop-overflow -o "$out/demo-$flavor" examples/demo.c
  echo "== $flavor: $run $out/demo-$flavor"
  $run "$out/demo-$flavor"
  target/release/loggp show "$out/demo-$flavor.json"
done
# A Fortran job beside the C ones: the same shim, through Open MPI's mpi_f08 binding.
mpifort.openmpi -cpp -DF08 -O1 -o "$out/demo-fortran" tests/f/p2p.F90
echo "== Fortran (use mpi_f08), Open MPI"
mpirun.openmpi -np 2 -x LD_PRELOAD="$PWD/target/shim/openmpi/libloggp.so" -x LOGGP_REPORT="$out/demo-fortran.json" \
  -x LOGGP_CALIBRATE=off "$out/demo-fortran" | grep -v '^EXPECT'
target/release/loggp show "$out/demo-fortran.json" | sed -n '1,16p'
echo "reports kept in $out"
