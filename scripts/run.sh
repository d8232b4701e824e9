#!/usr/bin/env bash
# Sets up, builds and runs the main job: the demo scene, headless, printing
# its diagnostics each simulated second. Extra arguments go to the demo.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh
exec build/server/linkage-demo "$@"
