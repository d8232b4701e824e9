#!/usr/bin/env bash
# Makes what compose.yaml mounts as secrets, in deploy/secrets/ (never
# committed) or the directory given: a CA, a certificate it signs for linkaged (named linkaged,
# linkage, localhost and 127.0.0.1) and its key, and a token file with one
# admin token, which is printed once. Uses Debian's openssl only.
#
#   deploy/make-secrets.sh [DIR]      (again: keeps what exists)
#
# For a real deployment use certificates from your own CA (cert-manager) and
# `linkaged token new NAME --role ROLE` for each client.
set -euo pipefail
dir=${1:-$(dirname "$0")/secrets}
mkdir -p "$dir"
cd "$dir"
if [ ! -s ca.crt ]; then
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 825 -subj /CN=linkage-dev-ca \
    -keyout ca.key -out ca.crt 2>/dev/null
fi
if [ ! -s tls.crt ]; then
  openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj /CN=linkaged \
    -keyout tls.key -out tls.csr 2>/dev/null
  printf 'subjectAltName=DNS:linkaged,DNS:linkage,DNS:localhost,IP:127.0.0.1\n' >tls.ext
  openssl x509 -req -in tls.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 825 -extfile tls.ext \
    -out tls.crt 2>/dev/null
  rm -f tls.csr tls.ext
fi
if [ ! -s tokens ]; then
  token="lk_$(openssl rand -hex 32)"
  hash=$(printf '%s' "$token" | openssl dgst -sha256 -r | cut -d' ' -f1)
  printf '# name role worlds hash (linkaged token new makes lines)\nadmin admin * sha256:%s\n' "$hash" >tokens
  echo "the admin token (kept nowhere else): $token"
fi
# The containers run as user 10001: the files must be readable by it.
chmod 644 ca.crt tls.crt tokens tls.key
echo "secrets in $(pwd): ca.crt tls.crt tls.key tokens"
