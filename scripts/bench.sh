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
echo "== loggp show of a 1024-rank report (built from tools/tests/fixtures/openmpi_demo.json)"
cargo run --release -q -p loggp-tools --example many_ranks -- tools/tests/fixtures/openmpi_demo.json 1024 "$d/r1024.json"
ls -l "$d/r1024.json" | awk '{printf "report: %.1f MB\n", $5/1e6}'
for i in 1 2 3 4 5; do
  /usr/bin/time -f "%e s, %M KiB max RSS" target/release/loggp show "$d/r1024.json" >/dev/null
done
rm -rf "$d"
