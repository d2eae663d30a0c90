#!/usr/bin/env bash
# Builds libloggp.so once per MPI (each in its own target directory) and the loggp command.
#   target/release/libloggp.so        Open MPI (the mpicc on PATH)
#   target/mpich/release/libloggp.so  MPICH    (mpicc.mpich)
#   target/release/loggp              the report tool (needs no MPI)
# and copies each shim to target/shim/<mpi>/libloggp.so, the copies the tests preload
# (cargo test may re-link target/release/libloggp.so with other metadata).
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x "$HOME/.cargo/bin/cargo" ] && export PATH="$HOME/.cargo/bin:$PATH"
cargo build --release --workspace -q
mkdir -p target/shim/openmpi target/shim/mpich
cp target/release/libloggp.so target/shim/openmpi/libloggp.so
if command -v mpicc.mpich >/dev/null 2>&1; then
  MPICC=mpicc.mpich CARGO_TARGET_DIR=target/mpich cargo build --release -p loggp -q
  cp target/mpich/release/libloggp.so target/shim/mpich/libloggp.so
fi
