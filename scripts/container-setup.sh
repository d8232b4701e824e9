#!/usr/bin/env bash
# Prepares podman to build and run deploy/Dockerfile on a Debian 12 machine
# with no container registry: the packages, runc as the runtime, and the
# debian:bookworm base image made with debootstrap from the machine's own
# apt mirror. Idempotent, and quick when everything is there. Runs as root.
set -euo pipefail

need=()
for p in podman buildah runc debootstrap fuse-overlayfs slirp4netns uidmap; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
  echo "container-setup: installing ${need[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 install -y -qq "${need[@]}"
fi

# crun is not on every machine and its cgroup handling fails in some
# sandboxes; runc with cgroupfs works in both. File limits are kept modest
# because the sandbox caps what a container may ask for.
conf=/etc/containers/containers.conf
if ! grep -qs 'runtime = "runc"' "$conf"; then
  mkdir -p /etc/containers
  printf '%s\n' '[containers]' 'default_ulimits = ["nofile=20000:20000", "nproc=32768:32768"]' \
    '[engine]' 'runtime = "runc"' 'cgroup_manager = "cgroupfs"' 'events_logger = "file"' >"$conf"
fi

podman image exists localhost/debian:bookworm && exit 0

# The apt mirror this machine uses, from deb822 sources or the classic list.
mirror=$(grep -h '^URIs:' /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '{print $2}' | grep -E '/debian/?$' | head -1 || true)
[ -n "$mirror" ] || mirror=$(awk '$1 == "deb" && $3 == "bookworm" {print $2; exit}' /etc/apt/sources.list 2>/dev/null || true)
[ -n "$mirror" ] || { echo "container-setup: no Debian mirror in the apt sources" >&2; exit 1; }
security=$(grep -h '^URIs:' /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '{print $2}' | grep -E '/debian-security/?$' | head -1 || true)
[ -n "$security" ] || security="${mirror%/debian*}/debian-security"

echo "container-setup: making debian:bookworm from $mirror (about a minute)"
rootfs=$(mktemp -d)
trap 'rm -rf "$rootfs"' EXIT
debootstrap --variant=minbase bookworm "$rootfs" "$mirror" >/dev/null
printf 'deb %s bookworm main\ndeb %s bookworm-updates main\ndeb %s bookworm-security main\n' \
  "$mirror" "$mirror" "$security" >"$rootfs/etc/apt/sources.list"
rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*
tar --numeric-owner -C "$rootfs" -c . | podman import --change 'CMD ["/bin/bash"]' - localhost/debian:bookworm >/dev/null
# FROM debian:bookworm and debian:bookworm-slim resolve to the local image.
for tag in bookworm bookworm-slim; do
  podman tag localhost/debian:bookworm "docker.io/library/debian:$tag"
done
