#!/usr/bin/env bash
# The sanitizer part of CI (scripts/test.sh runs it after the main tests):
# builds linkage with clang, AddressSanitizer and UndefinedBehaviorSanitizer
# into build-sanitize/, runs the core's unit tests, the server's conversion
# tests and the integration tests (real gRPC on loopback) there, then the
# request fuzzer for LINKAGE_FUZZ_SECONDS (default 60) over its committed seed
# corpus; then the core's unit tests under ThreadSanitizer (build-tsan/: the
# parallel passes and the thread pool, on one to three threads). A sanitizer
# report, a crash, a hang, a failed test or a refused request that changed a
# world fails the run.
set -euo pipefail
cd "$(dirname "$0")/.."
# A clang build into $1 with the options after it; -O1 -g1: quick to build,
# line numbers in every report.
configure() {
  local into=$1
  shift
  cmake -S . -B "$into" -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" -DLINKAGE_BUILD_WEB=OFF -DLINKAGE_BUILD_BENCH=OFF "$@" >/dev/null
}
dir=build-sanitize
configure "$dir" -DLINKAGE_SANITIZE=ON -DLINKAGE_FUZZ=ON -DLINKAGE_FUZZ_SECONDS="${LINKAGE_FUZZ_SECONDS:-60}"
cmake --build "$dir" --parallel "${JOBS:-2}" \
  --target unit_tests server_unit_tests host_tests integration_tests metrics_tests log_tests linkaged request_fuzzer
# The gtest binaries run whole (one process each, not one per case under
# CTest): the sanitizers' start-up is paid once.
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1
# metrics_tests: the sanitized linkaged's worlds feeding /metrics, a deleted world's series removed.
for t in tests/unit_tests tests/server/server_unit_tests tests/server/host_tests tests/integration/integration_tests \
  tests/integration/metrics_tests tests/server/log_tests; do
  echo "sanitize: $t"
  "$dir/$t" --gtest_brief=1
done
ctest --test-dir "$dir" --output-on-failure -L fuzz

# ThreadSanitizer wants a build of its own (it cannot share one with ASan).
tsan=build-tsan
configure "$tsan" -DLINKAGE_SANITIZE_THREAD=ON -DLINKAGE_BUILD_PYTHON=OFF
cmake --build "$tsan" --parallel "${JOBS:-2}" --target unit_tests
echo "sanitize (thread): tests/unit_tests"
TSAN_OPTIONS=halt_on_error=1 "$tsan/tests/unit_tests" --gtest_brief=1
