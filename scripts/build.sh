#!/usr/bin/env bash
# Builds libloggp.so once per MPI (each in its own target directory) and the loggp command.
#   target/release/libloggp.so        Open MPI (the mpicc on PATH)
#   target/mpich/release/libloggp.so  MPICH    (mpicc.mpich)
#   target/release/loggp              the report tool (needs no MPI)
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x "$HOME/.cargo/bin/cargo" ] && export PATH="$HOME/.cargo/bin:$PATH"
cargo build --release --workspace -q
if command -v mpicc.mpich >/dev/null 2>&1; then
  MPICC=mpicc.mpich CARGO_TARGET_DIR=target/mpich cargo build --release -p loggp -q
fi
