#!/usr/bin/env bash
# Installs every Debian package linkage needs to build, run and test.
# Idempotent: installs only what is missing. Runs as root (or through sudo).
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config
  libeigen3-dev                      # core: vectors, sparse matrices, orderings
  libmetis-dev                       # core: nested dissection orders for the direct solver
  libgtest-dev libgmock-dev          # tests
  libbenchmark-dev                   # bench/
  libbox2d-dev                       # bench/: the peer engine
  libsuitesparse-dev libopenblas0-serial   # bench/solver_bench: CHOLMOD beside the direct solver, with a tuned BLAS
  libgrpc++-dev libprotobuf-dev      # server/: gRPC (pkg-config grpc++) and protobuf
  protobuf-compiler protobuf-compiler-grpc   # protoc and grpc_cpp_plugin
  libspdlog-dev                      # server/: logging
  libcli11-dev                       # server/: flags
  prometheus-cpp-dev                 # server/metrics: /metrics (prometheus-cpp's core and pull)
  libssl-dev openssl                 # server/access: SHA-256 of tokens (libcrypto), TLS key checks; tests make certificates
  clang libclang-rt-14-dev llvm      # fuzz/ and scripts/sanitize.sh: libFuzzer, ASan, UBSan, llvm-symbolizer
  python3-grpcio python3-protobuf python3-pytest   # client/python: runtime and tests
  python3-pip python3-setuptools python3-wheel   # client/python: the wheel (pip wheel, offline)
  python3-venv python3-numpy         # client/python: its test in a fresh venv, the numpy extra
  python3-yaml curl                  # tests/deploy: manifest checks, the container smoke test
  python3-h2                         # tests/integration/unread_test.py: HTTP/2 as no gRPC library speaks it
  zsh jq                             # tests/client: linkctl's zsh completion run by zsh itself; its --json output
  chromium                           # web/e2e: the viewer in headless Chromium
)
# web/: Node >= 18.14 and npm. Any install on PATH will do (this machine may
# have a newer Node than Debian's 18); only without one take Debian's.
node_ok() {
  command -v npm >/dev/null && command -v node >/dev/null &&
    node -e 'const [a, b] = process.versions.node.split(".").map(Number); process.exit(a > 18 || (a === 18 && b >= 14) ? 0 : 1)'
}
node_ok || packages+=(nodejs npm)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
as_root=()
[ "$(id -u)" -eq 0 ] || as_root=(sudo)
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  "${as_root[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${as_root[@]}" apt-get install -y -qq "${missing[@]}"
fi

# Containers (deploy/, tests/deploy): podman, and a local debian:bookworm
# base image since no registry is reachable.
"${as_root[@]}" "$(dirname "$0")/container-setup.sh"
