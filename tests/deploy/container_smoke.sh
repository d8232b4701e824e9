#!/usr/bin/env bash
# The container smoke test: builds both images of deploy/Dockerfile, runs
# them in one pod on loopback ports with TLS and tokens (certificates and a
# token from deploy/make-secrets.sh, mounted as compose and Kubernetes mount
# theirs), waits for their health checks, drives the server with the host's
# linkctl (a world, two bodies, a rod, streamed snapshots; refused without
# the token or without TLS), asks the gateway over HTTPS for the viewer and
# an API call, reads both /metrics pages (the session's world and calls
# counted, refusals by their code), then stops both with SIGTERM and asserts clean exits; and
# starts the server again and finds its world as it was (--data-dir).
#
# Usage: container_smoke.sh LINKCTL ROOT
# Exit 77 (CTest: skipped) only when podman cannot run a container here,
# and then loudly. Sizes and logs go to $LINKAGE_ARTIFACTS (build/deploy-artifacts).
set -u
LINKCTL=$(realpath "$1")
ROOT=$(realpath "$2")
ART=${LINKAGE_ARTIFACTS:-$ROOT/build/deploy-artifacts}
mkdir -p "$ART"
POD=linkage-smoke-$$
SERVER_IMAGE=localhost/linkage:smoke
WEB_IMAGE=localhost/linkage-web:smoke
failures=0

banner() { printf '\n%s\n!!! %s\n%s\n\n' "$(printf '!%.0s' {1..78})" "$1" "$(printf '!%.0s' {1..78})"; }
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
free_port() { /usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
cleanup() {
  podman logs "$POD-server" >"$ART/linkaged.log" 2>&1
  podman logs "$POD-web" >"$ART/gateway.log" 2>&1
  podman pod rm -f "$POD" >/dev/null 2>>"$ART/podman.log"
}

if ! command -v podman >/dev/null; then
  banner "SKIPPED: podman is not installed, so the container smoke test cannot run (scripts/setup.sh installs it)"
  exit 77
fi
if ! podman image exists localhost/debian:bookworm; then
  banner "SKIPPED: no local debian:bookworm base image and no registry to pull one from (../shared/tools/container-env makes it)"
  exit 77
fi
if ! probe=$(podman run --rm --pull=never --network none localhost/debian:bookworm true 2>&1); then
  banner "SKIPPED: podman cannot run a container on this machine: $probe"
  exit 77
fi
trap cleanup EXIT

# --- build (layers are cached between runs) ---
secret=()
ca=${NPM_CA:-/etc/ssl/certs/ca-certificates.crt}
[ -s "$ca" ] && secret=(--secret "id=npm-ca,src=$ca")
build() {  # TARGET TAG
  echo "building $2 (target $1)"
  if ! podman build --format docker --pull=never "${secret[@]}" --target "$1" -t "$2" -f "$ROOT/deploy/Dockerfile" \
      "$ROOT" >"$ART/build-$1.log" 2>&1; then
    tail -40 "$ART/build-$1.log"
    echo "FAIL: podman build --target $1 (whole log: $ART/build-$1.log)"
    exit 1
  fi
}
build server "$SERVER_IMAGE"
build web "$WEB_IMAGE"
size_mb() { podman image inspect "$1" --format '{{.Size}}' | awk '{printf "%.0f", $1 / 1e6}'; }
echo "image sizes: server $(size_mb "$SERVER_IMAGE") MB, web $(size_mb "$WEB_IMAGE") MB" | tee "$ART/image-sizes.txt"

# --- secrets: a CA, linkaged's certificate and key, a token file ---
SECRETS=$(mktemp -d)
trap 'cleanup; rm -rf "$SECRETS"' EXIT
TOKEN=$(bash "$ROOT/deploy/make-secrets.sh" "$SECRETS" | sed -n 's/^the admin token (kept nowhere else): //p')
[ -n "$TOKEN" ] || { echo "FAIL: deploy/make-secrets.sh printed no token"; exit 1; }
chmod 755 "$SECRETS"
S=/run/secrets/linkage
MOUNT=(-v "$SECRETS:$S:ro")

# The image alone refuses to serve its network address in the clear.
podman run --rm --pull=never "$SERVER_IMAGE" >"$ART/refused.log" 2>&1
refused=$?
[ "$refused" -eq 2 ] && grep -q -- "--insecure" "$ART/refused.log" ||
  fail "without TLS and tokens the server exited $refused, not 2 with a message: $(head -c 300 "$ART/refused.log")"

# --- run both in one pod: the gateway reaches linkaged on the pod's loopback ---
GRPC_PORT=$(free_port)
WEB_PORT=$(free_port)
METRICS_PORT=$(free_port)
WEB_METRICS_PORT=$(free_port)
podman pod create --name "$POD" -p "127.0.0.1:$GRPC_PORT:50051" -p "127.0.0.1:$WEB_PORT:8080" \
  -p "127.0.0.1:$METRICS_PORT:9090" -p "127.0.0.1:$WEB_METRICS_PORT:9091" >/dev/null
# Health checks run on demand below: podman's own timers need systemd, and
# its complaints that there is none go to a log instead of the output.
podman run -d --pod "$POD" --name "$POD-server" "${MOUNT[@]}" \
  -e LINKAGE_TLS_CERT=$S/tls.crt -e LINKAGE_TLS_KEY=$S/tls.key -e LINKAGE_TOKENS=$S/tokens \
  -e LINKCTL_TLS_CA=$S/ca.crt -e LINKCTL_SERVER=localhost:50051 \
  "$SERVER_IMAGE" >/dev/null 2>>"$ART/podman.log" || { echo "FAIL: the server did not start"; exit 1; }
podman run -d --pod "$POD" --name "$POD-web" "${MOUNT[@]}" -e LINKAGE_UPSTREAM=127.0.0.1:50051 \
  -e LINKAGE_UPSTREAM_CA=$S/ca.crt -e LINKAGE_WEB_TLS_CERT=$S/tls.crt -e LINKAGE_WEB_TLS_KEY=$S/tls.key \
  "$WEB_IMAGE" >/dev/null 2>>"$ART/podman.log" || { echo "FAIL: the gateway did not start"; exit 1; }

healthy() {  # CONTAINER: its image's HEALTHCHECK passes within 60 s
  for _ in $(seq 120); do
    podman healthcheck run "$1" >/dev/null 2>&1 && return 0
    sleep 0.5
  done
  return 1
}
healthy "$POD-server" || fail "the server's HEALTHCHECK (linkctl health) never passed"
healthy "$POD-web" || fail "the gateway's HEALTHCHECK (/healthz) never passed"
[ "$(podman inspect "$POD-server" --format '{{.Config.User}}')" = "10001:10001" ] || fail "the server does not run as user 10001"

# --- the server, from the host's linkctl: TLS, and the token ---
export LINKCTL_SERVER=127.0.0.1:$GRPC_PORT LINKCTL_TLS_CA=$SECRETS/ca.crt
L() { LINKCTL_TOKEN=$TOKEN "$LINKCTL" --timeout 20 "$@"; }
L health | grep -q SERVING || fail "linkctl health from the host"
"$LINKCTL" --timeout 5 health | grep -q SERVING || fail "linkctl health without a token"
"$LINKCTL" --timeout 5 world list >/dev/null 2>&1
rc=$?
[ "$rc" -eq 16 ] || fail "world list without a token exited $rc, not 16 (UNAUTHENTICATED)"
LINKCTL_TLS_CA= "$LINKCTL" --timeout 3 --token "$TOKEN" world list >/dev/null 2>&1
rc=$?
[ "$rc" -eq 14 ] || fail "world list in plain text to the TLS port exited $rc, not 14 (UNAVAILABLE)"
L world list | grep -q default || fail "the default world (demo scene) is missing"
L world create smoke >/dev/null || fail "world create"
L --world smoke body add --name anchor --motion fixed --pos 0,0 >/dev/null || fail "body add anchor"
L --world smoke body add --name bob --pos 1,0 --mass 1 >/dev/null || fail "body add bob"
L --world smoke constraint add distance --a anchor --b bob --length 1 >/dev/null || fail "constraint add"
frames=$(L --world smoke --json watch --count 5 --rate 30)
[ "$(grep -c '"tick"' <<<"$frames")" -eq 5 ] || fail "watch --count 5 gave: $(head -c 300 <<<"$frames")"
L --world smoke --json world get | grep -q '"constraint_count":1' || fail "the world lacks its constraint"

# --- the gateway over HTTPS: the viewer, the scenes and a Connect call with the token ---
WEB=https://127.0.0.1:$WEB_PORT
C() { curl -s --cacert "$SECRETS/ca.crt" "$@"; }
C -f "$WEB/" | grep -qi "<html" || fail "GET / is not the viewer's page"
C -f "$WEB/scenes/index.json" | grep -q '"demo"' || fail "GET /scenes/index.json lacks demo"
C -f "$WEB/healthz" >/dev/null || fail "GET /healthz"
C -f -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' -d '{"world":"smoke"}' \
  "$WEB/linkage.v1.WorldService/GetWorld" | grep -q '"constraintCount":1' || fail "GetWorld through the gateway"
code=$(C -o /dev/null -w '%{http_code}' -H 'Content-Type: application/json' -d '{"world":"smoke"}' \
  "$WEB/linkage.v1.WorldService/GetWorld")
[ "$code" = "401" ] || fail "GetWorld through the gateway without a token answered HTTP $code, not 401"

# --- /metrics of both, served by the images' defaults (plain HTTP on 9090 and 9091) ---
M=$(curl -sf "http://127.0.0.1:$METRICS_PORT/metrics") || fail "GET linkaged's /metrics"
echo "$M" >"$ART/linkaged-metrics.txt"
grep -qx 'linkage_world_bodies{world="smoke"} 2' <<<"$M" || fail "linkaged's metrics lack the world's 2 bodies"
grep -qx 'linkage_world_constraints{world="smoke"} 1' <<<"$M" || fail "linkaged's metrics lack the world's rod"
grep -Eq '^linkage_rpc_requests_total\{code="UNAUTHENTICATED",method="/linkage.v1.WorldService/ListWorlds"\} [1-9]' <<<"$M" ||
  fail "linkaged's metrics lack the refused world list"
grep -Eq '^linkage_world_frames_sent_total\{world="smoke"\} [1-9]' <<<"$M" || fail "linkaged's metrics lack the frames watched"
W=$(curl -sf "http://127.0.0.1:$WEB_METRICS_PORT/metrics") || fail "GET the gateway's /metrics"
echo "$W" >"$ART/gateway-metrics.txt"
grep -qx 'linkage_gateway_requests_total{procedure="/linkage.v1.WorldService/GetWorld",code="OK"} 1' <<<"$W" ||
  fail "the gateway's metrics lack its GetWorld"
grep -qx 'linkage_gateway_requests_total{procedure="/linkage.v1.WorldService/GetWorld",code="UNAUTHENTICATED"} 1' <<<"$W" ||
  fail "the gateway's metrics lack its refused GetWorld"

# --- SIGTERM: a stream open at the time ends with UNAVAILABLE, both exit 0 ---
L --world smoke watch --rate 10 >/dev/null 2>"$ART/watch.err" &
watcher=$!
sleep 1
podman stop -t 10 "$POD-server" >/dev/null 2>>"$ART/podman.log"
wait "$watcher"
watch_rc=$?
[ "$watch_rc" -eq 14 ] || fail "a stream open at SIGTERM ended with exit $watch_rc, not 14 (UNAVAILABLE): $(cat "$ART/watch.err")"
podman stop -t 10 "$POD-web" >/dev/null 2>>"$ART/podman.log"
for c in server web; do
  code=$(podman inspect "$POD-$c" --format '{{.State.ExitCode}}')
  [ "$code" = "0" ] || fail "the $c container exited with $code after SIGTERM"
done
podman logs "$POD-server" 2>&1 | grep -q "SIGTERM: ending streams" || fail "linkaged did not log its SIGTERM shutdown"

# --- a restart keeps the worlds (the image's data directory is its volume) ---
podman start "$POD-server" >/dev/null 2>>"$ART/podman.log" || fail "the server did not start again"
healthy "$POD-server" || fail "the restarted server's HEALTHCHECK never passed"
L --world smoke --json world get | grep -q '"constraint_count":1' ||
  fail "the world 'smoke' did not survive a restart of its container"
podman stop -t 10 "$POD-server" >/dev/null 2>>"$ART/podman.log"

if [ "$failures" -ne 0 ]; then
  echo "$failures check(s) failed; logs in $ART"
  exit 1
fi
echo "container smoke test passed"
