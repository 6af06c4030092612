#!/usr/bin/env bash
# Installs what gltrace needs to build, test and run its demos, from Debian's
# packages only: tools/deps.sh [--bench]  (--bench adds what tools/bench.sh
# compares against). Idempotent: does nothing when everything is there.
# Checked on a clean Debian 12 by tools/clean_machine_check.sh.
set -euo pipefail

packages=(
  # build; git lists the files tools/test.sh checks
  g++ cmake ninja-build python3 pkg-config git
  # EGL/GLES headers, the Khronos registry the code generator reads, X11
  libegl-dev libgles-dev khronos-api libx11-dev
  # the real driver every test runs against: Mesa llvmpipe
  libegl1 libgles2 libegl-mesa0 libgl1-mesa-dri
  # tests: GoogleTest, Xvfb for X11 apps, glmark2 and piglit as real apps
  libgtest-dev xvfb xauth glmark2-es2-x11 piglit
  # checks
  clang-format clang-tidy
  # trace format: zstd chunks; protoc decodes records in tests, with the
  # descriptor.proto of libprotobuf-dev to read its own descriptor sets;
  # libFuzzer (clang)
  libzstd-dev protobuf-compiler libprotobuf-dev clang libclang-rt-14-dev
)
if [ "${1:-}" = "--bench" ]; then
  # apitrace and eglretrace: the reference tools/bench.sh measures against
  packages+=(apitrace apitrace-tracers)
elif [ $# -gt 0 ]; then
  echo "usage: tools/deps.sh [--bench]" >&2
  exit 2
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "deps: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
$SUDO apt-get update -qq
# Quiet on success; apt's own messages say why when it fails.
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
