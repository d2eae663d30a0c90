#!/usr/bin/env bash
# Packs what a lent many-core machine (the `device` tool; no MPI of Debian's there, no
# network) needs to run loggp's many-rank checks: Debian's MPICH 4.0.2 with its UCX as a
# tarball for /opt/dmpich, the stripped shims of both MPIs, and the test and bench
# programs built here. Into .dev/ (ignored: add `/.dev/` to .git/info/exclude), which a
# run carries (`carry: [".dev"]`); scripts/device/collectives.sh runs there.
# Needs the shims built (scripts/build.sh) and scripts/mpi-env.sh's compilers.
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/mpi-env.sh
grep -qx '/.dev/' .git/info/exclude 2>/dev/null || echo '/.dev/' >> .git/info/exclude
rm -rf .dev && mkdir -p .dev/bin .dev/shim/openmpi .dev/shim/mpich
cp scripts/device/collectives.sh .dev/
strip -o .dev/shim/openmpi/libloggp.so target/shim/openmpi/libloggp.so
strip -o .dev/shim/mpich/libloggp.so target/shim/mpich/libloggp.so
for m in openmpi mpich; do
  cc=mpicc.$m
  $cc -O2 -w -o .dev/bin/coll_model-$m tests/c/coll_model.c
  $cc -O2 -o .dev/bin/cc-$m bench/concurrent_copies.c
  $cc -O2 -o .dev/bin/ovh-$m bench/overhead.c
done
t=$(mktemp -d)
mkdir -p "$t/opt/dmpich/bin" "$t/opt/dmpich/lib"
cp -L /usr/bin/mpiexec.hydra /usr/bin/hydra_pmi_proxy "$t/opt/dmpich/bin/"
lib=/usr/lib/x86_64-linux-gnu
for l in libmpich.so.12 libhwloc.so.15 libnuma.so.1 libslurm.so.38 libucm.so.0 libucp.so.0 \
  libucs.so.0 libuct.so.0 libudev.so.1 libibverbs.so.1 libmlx5.so.1 libnl-3.so.200 \
  libnl-route-3.so.200 librdmacm.so.1; do
  cp -L "$lib/$l" "$t/opt/dmpich/lib/"
done
cp -rL "$lib/ucx" "$t/opt/dmpich/lib/"
tar czf .dev/mpich.tgz -C "$t" opt
rm -rf "$t"
du -sh .dev
