#!/usr/bin/env bash
# Sets up, builds and runs the main job: linkaged serving the linkage.v1 API
# on 127.0.0.1:50051 with the demo scene in the "default" world, and the web
# gateway serving the viewer and the API to browsers on 127.0.0.1:8080.
# Extra arguments go to linkaged (see `build/server/linkaged --help`);
# LINKAGE_WEB_LISTEN moves the gateway. Ctrl-C or SIGTERM stops both.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh

# The gateway calls linkaged where it listens: its --listen (flag or
# environment), with a wildcard host reached on loopback.
upstream="${LINKAGE_LISTEN:-127.0.0.1:50051}"
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
  case "${args[i]}" in
    --listen=*) upstream="${args[i]#--listen=}" ;;
    --listen) upstream="${args[i + 1]:-$upstream}" ;;
  esac
done
loopback() { sed -e 's/^0\.0\.0\.0:/127.0.0.1:/' -e 's/^\[::\]:/[::1]:/' <<<"$1"; }
web="${LINKAGE_WEB_LISTEN:-127.0.0.1:8080}"

build/server/linkaged --scene scenes/demo.json "$@" &
server=$!
LINKAGE_UPSTREAM="$(loopback "$upstream")" LINKAGE_WEB_LISTEN="$web" node web/gateway/dist/main.js &
gateway=$!

stop() { kill -TERM "$gateway" "$server" 2>/dev/null || true; }
trap stop INT TERM
echo "linkage: the viewer is at http://$(loopback "$web")/?world=default (Ctrl-C stops)"

# Until a signal, or until either program ends; then both go, and the job
# fails if either did.
wait -n "$server" "$gateway" || true
stop
status=0
wait "$server" || status=$?
wait "$gateway" || status=$?
exit "$status"
