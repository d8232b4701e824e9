#!/usr/bin/env bash
# Builds and runs the benchmarks against Box2D (bench/) and the direct
# solver's against Eigen's and CHOLMOD's factorizations and contacts against
# Box2D's, then writes bench/results.json, bench/solvers.json,
# bench/contacts.json, bench/results.csv and BENCHMARKS.md.
#   scripts/bench.sh                              the full suite (a few minutes on 2 cores)
#   scripts/bench.sh --benchmark_filter='^chain'  any Google Benchmark flag, or --steps=N to shorten every scene
# BUILD_DIR (default build) and BUILD_TYPE (default Release) as in scripts/build.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
build="${BUILD_DIR:-build}"
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-Release}" -DLINKAGE_BUILD_BENCH=ON >/dev/null
cmake --build "$build" --parallel "${JOBS:-2}" --target linkage_bench solver_bench contact_bench
commit="$(git describe --always --dirty 2>/dev/null || echo unknown)"
"$build/bench/linkage_bench" --benchmark_out=bench/results.json --benchmark_out_format=json \
  --benchmark_context=commit="$commit" "$@"
"$build/bench/solver_bench" --benchmark_out=bench/solvers.json --benchmark_out_format=json \
  --benchmark_context=commit="$commit" --benchmark_min_time=0.5 >/dev/null
# Contacts: full length always (--steps does not apply to them).
"$build/bench/contact_bench" --benchmark_out=bench/contacts.json --benchmark_out_format=json \
  --benchmark_context=commit="$commit" >/dev/null
/usr/bin/python3 bench/report.py bench/results.json --solvers bench/solvers.json --contacts bench/contacts.json
