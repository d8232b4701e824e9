#!/usr/bin/env bash
# Sets up, builds and runs every test. This is what CI runs.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh
ctest --test-dir build --output-on-failure --timeout 600 -j "${JOBS:-2}"
# The sanitizer build (clang, ASan + UBSan) and the request fuzzer.
scripts/sanitize.sh
