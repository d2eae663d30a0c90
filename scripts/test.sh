#!/usr/bin/env bash
# The test command: installs what is missing, builds both shims, runs every test
# (unit tests, and the integration tests that run real MPI programs under mpirun).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
source scripts/mpi-env.sh
scripts/build.sh
# A test that cannot run fails unless its reason is on the skip list (tests/common/skip.rs);
# the list and every skip taken are printed at the end, whatever the outcome.
rm -f target/test-skips.log
report_skips() {
  local list
  list=$( { sed 's/#.*//' tests/skip-list.txt; tr ',' '\n' <<<"${LOGGP_TEST_SKIP:-}"; } | sed 's/^ *//; s/ *$//' | grep -v '^$' || true)
  echo "skip list (tests/skip-list.txt, LOGGP_TEST_SKIP): $(grep -c . <<<"$list" || true) reason(s)${list:+: $(tr '\n' ' ' <<<"$list")}"
  if [ -s target/test-skips.log ]; then
    echo "tests that could not run: $(wc -l < target/test-skips.log)"
    sed 's/^/  /' target/test-skips.log
  else
    echo "tests that could not run: 0"
  fi
}
trap report_skips EXIT
# --no-fail-fast: every test binary runs after one fails, so a run names all its failures
# (CI of 2026-12-06 stopped at tests/advise.rs, 346 s in, and ran nothing after it).
cargo test --release --workspace --no-fail-fast -- --test-threads=1 "$@"
