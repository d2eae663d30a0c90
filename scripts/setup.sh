#!/usr/bin/env bash
# Installs what loggp needs on Debian 12 when it is missing: both MPIs, libclang for
# bindgen, gfortran, the real programs the tests run (NetPIPE, mpi4py, hpcc, LAMMPS with
# its examples, which apt installs apart: lammps-examples holds the melt input) and
# chromium (the HTML page of `loggp html` is rendered headless in a test), python3-jsonschema
# (every report the tests read is validated against the shipped JSON Schema) and
# environment-modules (the installed module file is loaded in a test), slurm-wlm and munge
# (a single-node Slurm started by a test, scripts/slurm-local.sh).
set -euo pipefail
pkgs=(openmpi-bin libopenmpi-dev mpich libmpich-dev libucx-dev libclang-dev clang gcc gfortran
      python3-mpi4py netpipe-openmpi netpipe-mpich2 pkg-config ca-certificates
      chromium hpcc lammps lammps-examples python3-jsonschema environment-modules slurm-wlm munge)
missing=()
for p in "${pkgs[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
if ! command -v cargo >/dev/null 2>&1; then
  [ -x "$HOME/.cargo/bin/cargo" ] && export PATH="$HOME/.cargo/bin:$PATH"
fi
command -v cargo >/dev/null 2>&1 || { echo "setup: cargo (Rust >= 1.79) is required: https://rustup.rs" >&2; exit 1; }
