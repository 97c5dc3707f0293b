#!/usr/bin/env bash
# sid_root.sh: a Debian sid root filesystem with what users have now: Kokkos
# 5.2.2 (Debian's libkokkos-dev: OpenMP, C++20), GCC 16 and Python 3.14. Its
# libraries need a newer glibc than Debian 12's, so it is a root to chroot
# into (scripts/suite.py --kokkos sid runs the suite there), made with
# debootstrap from the Debian mirror this machine's apt uses. Run as root.
#
#   bash scripts/sid_root.sh [DIR]    (DIR: $SID_ROOT, else /var/tmp/kokkos-python-sid)
#
# Made once: a second run with the same package list does nothing. About two
# minutes and 1.4 GB from nothing (with Open MPI for the MPI tests). The
# Python packages the tests need come from PyPI into a venv inside the root
# (scripts/suite.py), not from here.
set -euo pipefail
cd "$(dirname "$0")/.."
root=${1:-${SID_ROOT:-/var/tmp/kokkos-python-sid}}
packages="libkokkos-dev g++ cmake make python3 python3-venv python3-dev git ca-certificates openmpi-bin libopenmpi-dev"

if [ "$(id -u)" != 0 ]; then
  echo "sid_root: needs root (debootstrap, chroot)" >&2
  exit 2
fi
if [ -f "$root/.kokkos-python-root" ] && [ "$(cat "$root/.kokkos-python-root")" = "$packages" ]; then
  echo "$root"
  exit 0
fi

# The Debian mirror apt uses here (deb822 or one-line sources), else Debian's.
mirror=${SID_MIRROR:-}
if [ -z "$mirror" ]; then
  mirror=$(cat /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '/^URIs:/ {print $2}' | grep -v -- '-security' | head -n 1 || true)
fi
if [ -z "$mirror" ]; then
  mirror=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
    awk '$1 == "deb" {for (i = 2; i <= NF; i++) if ($i ~ /^https?:/) {print $i; break}}' | grep -v -- '-security' | head -n 1 || true)
fi
mirror=${mirror:-http://deb.debian.org/debian}

if ! command -v debootstrap >/dev/null 2>&1; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q debootstrap >/dev/null ||
    { apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -q debootstrap >/dev/null; }
fi

start=$(date +%s)
if [ ! -f "$root/etc/debian_version" ]; then
  # Made beside its place and moved there whole, so that an interrupted run
  # leaves no half-made root behind.
  rm -rf "$root.new"
  mkdir -p "$(dirname "$root")"
  echo "sid_root: debootstrap sid from $mirror into $root" >&2
  debootstrap --variant=minbase sid "$root.new" "$mirror" >"$(dirname "$root")/sid-debootstrap.log" 2>&1 || {
    tail -n 20 "$(dirname "$root")/sid-debootstrap.log" >&2
    echo "sid_root: debootstrap failed (log: $(dirname "$root")/sid-debootstrap.log)" >&2
    exit 1
  }
  rm -rf "$root"
  mv "$root.new" "$root"
fi

# This machine's apt settings (a proxy, its mirror's quirks) and local CA
# certificates: the mirror and PyPI may be reachable only through them.
if [ -d /etc/apt/apt.conf.d ]; then
  find /etc/apt/apt.conf.d -maxdepth 1 -type f -exec cp {} "$root/etc/apt/apt.conf.d/" \;
fi
[ -f /etc/apt/apt.conf ] && cp /etc/apt/apt.conf "$root/etc/apt/apt.conf"
if [ -d /usr/local/share/ca-certificates ]; then
  mkdir -p "$root/usr/local/share/ca-certificates"
  cp -r /usr/local/share/ca-certificates/. "$root/usr/local/share/ca-certificates/"
fi
cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true

mounted=()
cleanup() {
  local i
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do umount "${mounted[$i]}" 2>/dev/null || umount -l "${mounted[$i]}" || true; done
}
trap cleanup EXIT
for m in proc dev; do
  if ! mountpoint -q "$root/$m"; then
    if [ $m = proc ]; then mount -t proc proc "$root/proc"; else mount --bind /dev "$root/dev"; fi
    mounted+=("$root/$m")
  fi
done
echo "sid_root: apt-get install $packages" >&2
log=$(dirname "$root")/sid-apt.log
chroot "$root" env DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8 sh -c \
  "apt-get update -q && apt-get install -y -q --no-install-recommends $packages && apt-get clean" >"$log" 2>&1 || {
  tail -n 30 "$log" >&2
  echo "sid_root: apt-get failed in the root (log: $log)" >&2
  exit 1
}
# The host's CA bundle too, where it has more than the root's (a proxy's own CA).
if [ -f /etc/ssl/certs/ca-certificates.crt ] && ! cmp -s /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/ca-certificates.crt"; then
  cat /etc/ssl/certs/ca-certificates.crt >>"$root/etc/ssl/certs/ca-certificates.crt"
fi
echo "$packages" >"$root/.kokkos-python-root"
echo "sid_root: $(chroot "$root" dpkg-query -W -f '${Package} ${Version}' libkokkos-dev), $(chroot "$root" g++ --version | head -n 1), $(chroot "$root" python3 --version) in $(($(date +%s) - start)) s" >&2
echo "$root"
