#!/usr/bin/env bash
# Checks package sys against the newest io_uring uapi header the Debian
# archive has: downloads the newest linux-libc-dev .deb (sid, testing,
# backports, stable: whichever is newest), unpacks it into a temporary
# directory and runs sys's TestUAPIHeader on its include/linux/io_uring.h
# (and io_uring/*.h). Every constant, struct size and field offset of the
# header must match sys, and every name sys has that the header lacks must be
# marked newer than the header's release.
#
# apt runs with a private configuration (its own sources list, package lists
# and cache under the temporary directory): nothing is installed and the
# system's apt state is not touched. It needs apt-get, dpkg-deb and network
# access to the archive; without them it fails, it does not skip.
#
# Environment:
#   URING_UAPI_DEB     use this linux-libc-dev .deb instead of downloading one
#   URING_UAPI_MIRROR  Debian mirror (default http://deb.debian.org/debian)
#   URING_UAPI_SUITES  suites to look in (default: sid forky trixie-backports
#                      trixie bookworm-backports); pre-releases in
#                      experimental are left out on purpose
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/usr/local/go/bin:$HOME/go/bin:$PATH"

die() { echo "uapi.sh: $*" >&2; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/uapi.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

deb="${URING_UAPI_DEB:-}"
if [ -z "$deb" ]; then
  command -v apt-get >/dev/null || die "apt-get not found: this check needs a Debian-like machine (or URING_UAPI_DEB=path/to/linux-libc-dev.deb)"
  mirror="${URING_UAPI_MIRROR:-http://deb.debian.org/debian}"
  suites="${URING_UAPI_SUITES:-sid forky trixie-backports trixie bookworm-backports}"
  keyring=/usr/share/keyrings/debian-archive-keyring.gpg
  [ -r "$keyring" ] || die "$keyring not found: install debian-archive-keyring"
  mkdir -p "$tmp/apt/lists/partial" "$tmp/apt/cache/archives/partial" "$tmp/apt/sources.d"
  for s in $suites; do
    echo "deb [signed-by=$keyring] $mirror $s main"
  done >"$tmp/apt/sources.list"
  apt=(-q -o "Dir::Etc::SourceList=$tmp/apt/sources.list" -o "Dir::Etc::SourceParts=$tmp/apt/sources.d"
    -o "Dir::State::Lists=$tmp/apt/lists" -o "Dir::Cache=$tmp/apt/cache" -o "Dir::State::Status=/dev/null"
    -o "APT::Sandbox::User=root" -o "Acquire::Languages=none"
    -o "Acquire::IndexTargets::deb::DEP-11::DefaultEnabled=false"
    -o "Acquire::IndexTargets::deb::DEP-11-icons::DefaultEnabled=false"
    -o "Acquire::IndexTargets::deb::DEP-11-icons-small::DefaultEnabled=false"
    -o "Acquire::IndexTargets::deb::CNF::DefaultEnabled=false")
  # A suite the mirror does not have (or whose key this machine lacks) is a
  # warning; finding no linux-libc-dev at all is the failure.
  apt-get "${apt[@]}" update >"$tmp/update.log" 2>&1 || { cat "$tmp/update.log" >&2; die "apt-get update failed"; }
  grep -E '^(W|E):' "$tmp/update.log" >&2 || true
  newest=""
  while read -r v; do
    if [ -z "$newest" ] || dpkg --compare-versions "$v" gt "$newest"; then newest="$v"; fi
  done < <(apt-cache "${apt[@]}" madison linux-libc-dev | awk -F'|' '{gsub(/ /, "", $2); print $2}')
  [ -n "$newest" ] || { cat "$tmp/update.log" >&2; die "no linux-libc-dev in $mirror ($suites)"; }
  echo "newest linux-libc-dev: $newest"
  (cd "$tmp" && apt-get "${apt[@]}" download "linux-libc-dev=$newest") || die "cannot download linux-libc-dev $newest"
  deb=$(ls "$tmp"/linux-libc-dev_*.deb)
fi
[ -r "$deb" ] || die "$deb: not found"
command -v dpkg-deb >/dev/null || die "dpkg-deb not found"

version=$(dpkg-deb -f "$deb" Version)
dpkg-deb -x "$deb" "$tmp/root"
header="$tmp/root/usr/include/linux/io_uring.h"
[ -r "$header" ] || die "$deb has no usr/include/linux/io_uring.h"
echo "checking sys against $(basename "$deb") (Linux $version): io_uring.h $(cd "$tmp/root/usr/include/linux" && ls io_uring/*.h 2>/dev/null | tr '\n' ' ')"

out="$tmp/test.log"
status=0
URING_UAPI_HEADER="$header" URING_UAPI_VERSION="$version" \
  go test -count=1 -v -run '^(TestUAPIHeader|TestUAPIParser|TestReleaseMarks)$' ./sys/ >"$out" 2>&1 || status=$?
grep -vE '^=== (RUN|PAUSE|CONT)' "$out"
[ "$status" -eq 0 ] || die "sys does not match the Linux $version uapi header (see above)"
if grep -q -- '--- SKIP' "$out" || ! grep -q -- '--- PASS: TestUAPIHeader ' "$out"; then
  die "TestUAPIHeader did not run against the header"
fi
echo "uapi.sh: sys matches the Linux $version uapi header"
