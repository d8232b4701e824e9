#!/usr/bin/env bash
# Sets up, builds and runs the main job: linkaged serving the linkage.v1 API
# on 127.0.0.1:50051, with the demo scene in the "default" world. Extra
# arguments go to linkaged (see `build/server/linkaged --help`).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh
exec build/server/linkaged --scene scenes/demo.json "$@"
