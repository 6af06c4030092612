#!/usr/bin/env bash
# Installs what gltrace needs to build, test and run its demos, from Debian's
# packages only. Idempotent: does nothing when everything is there.
set -euo pipefail

packages=(
  # build
  g++ cmake ninja-build python3 pkg-config
  # EGL/GLES headers, the Khronos registry the code generator reads, X11
  libegl-dev libgles-dev khronos-api libx11-dev
  # the real driver every test runs against: Mesa llvmpipe
  libegl1 libgles2 libegl-mesa0 libgl1-mesa-dri
  # tests: GoogleTest, Xvfb for X11 apps, glmark2 as a real app; piglit and
  # wflinfo (without it piglit skips every test that names a GL version)
  libgtest-dev xvfb xauth glmark2-es2-x11 piglit waffle-utils
  # checks
  clang-format clang-tidy
  # trace format: zstd chunks; protoc decodes records in tests; libFuzzer (clang)
  libzstd-dev protobuf-compiler clang libclang-rt-14-dev
)

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
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
