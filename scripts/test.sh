#!/usr/bin/env bash
# The test command: installs what is missing, builds both shims, runs every test
# (unit tests, and the integration tests that run real MPI programs under mpirun).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
source scripts/mpi-env.sh
scripts/build.sh
cargo test --release --workspace -- --test-threads=1 "$@"
