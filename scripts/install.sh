#!/usr/bin/env bash
# Installs loggp into a prefix, as cluster administrators install tools:
#   DIR/bin/loggp
#   DIR/lib/loggp/openmpi/libloggp.so, DIR/lib/loggp/mpich/libloggp.so (those built)
#   DIR/share/loggp/          README.md, loggp-1.schema.json (the report's JSON Schema)
#   DIR/share/modulefiles/loggp/<version>   (Tcl: Lmod and environment-modules read it)
#   shell completions for bash, zsh and fish under DIR/share
# Usage: scripts/install.sh --prefix DIR [--no-build]
set -euo pipefail
cd "$(dirname "$0")/.."
prefix="" build=1
while (($#)); do
  case "$1" in
    --prefix) prefix="${2:-}"; shift 2 || { echo "install: --prefix needs a directory" >&2; exit 2; } ;;
    --prefix=*) prefix="${1#--prefix=}"; shift ;;
    --no-build) build=0; shift ;;
    -h|--help) sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "install: unknown argument $1 (usage: scripts/install.sh --prefix DIR [--no-build])" >&2; exit 2 ;;
  esac
done
[ -n "$prefix" ] || { echo "install: --prefix DIR is required" >&2; exit 2; }
mkdir -p "$prefix"
prefix="$(cd "$prefix" && pwd)"

if ((build)); then
  source scripts/mpi-env.sh
  scripts/build.sh
fi
bin=target/release/loggp
[ -x "$bin" ] || { echo "install: $bin is missing: run scripts/build.sh" >&2; exit 1; }
version="$("$bin" --version | awk '{print $2}')"

install -D -m 0755 "$bin" "$prefix/bin/loggp"
n=0
for mpi in openmpi mpich; do
  so="target/shim/$mpi/libloggp.so"
  if [ -f "$so" ]; then
    install -D -m 0755 "$so" "$prefix/lib/loggp/$mpi/libloggp.so"
    n=$((n + 1))
  fi
done
((n)) || echo "install: warning: no shim built (target/shim/<mpi>/libloggp.so); loggp run will not find one" >&2
install -D -m 0644 README.md "$prefix/share/loggp/README.md"
install -D -m 0644 report/loggp-1.schema.json "$prefix/share/loggp/loggp-1.schema.json"
mkdir -p "$prefix/share/bash-completion/completions" "$prefix/share/zsh/site-functions" \
         "$prefix/share/fish/vendor_completions.d"
"$prefix/bin/loggp" completions bash > "$prefix/share/bash-completion/completions/loggp"
"$prefix/bin/loggp" completions zsh > "$prefix/share/zsh/site-functions/_loggp"
"$prefix/bin/loggp" completions fish > "$prefix/share/fish/vendor_completions.d/loggp.fish"

mod="$prefix/share/modulefiles/loggp/$version"
mkdir -p "$(dirname "$mod")"
cat > "$mod" <<EOF
#%Module1.0
## loggp $version — written by scripts/install.sh; Lmod and environment-modules read it.
proc ModulesHelp { } {
    puts stderr "loggp $version: an MPI profiler that measures LogGP parameters inside your own job."
    puts stderr "  loggp run -- mpirun -np N ./app     (the shims for Open MPI and MPICH: $prefix/lib/loggp)"
    puts stderr "  loggp show <report.json>; loggp --help"
}
module-whatis "loggp $version: MPI profiler (LogGP parameters from the job's own traffic)"
conflict loggp
set prefix $prefix
prepend-path PATH \$prefix/bin
setenv LOGGP_LIB_DIR \$prefix/lib/loggp
EOF
chmod 0644 "$mod"
echo "install: loggp $version into $prefix ($n shim(s)); module file $mod"
echo "install: module use $prefix/share/modulefiles && module load loggp"
