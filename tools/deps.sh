#!/usr/bin/env bash
# Installs what gltrace needs to build, test and run its demos, from Debian's
# packages: tools/deps.sh [--bench]  (--bench adds what tools/bench.sh
# compares against); and from npm, pinned by their lock files, the browser
# tests' packages (tests/view_browser, tests/outputs/viewer).
# Idempotent: does nothing when everything is there.
# Checked on a clean Debian 12 by tools/clean_machine_check.sh.
set -euo pipefail

packages=(
  # build; git lists the files tools/test.sh checks; help2man makes the man
  # pages from the help texts (man-db: tests/install reads them with man -l)
  g++ cmake ninja-build python3 pkg-config git help2man man-db
  # the command-line parser of gltrace and glreplay (header-only)
  libcli11-dev
  # EGL/GLES headers, the Khronos registry the code generator reads, X11
  libegl-dev libgles-dev khronos-api libx11-dev libxcb1-dev
  # the real driver every test runs against: Mesa llvmpipe
  libegl1 libgles2 libegl-mesa0 libgl1-mesa-dri
  # replay --driver zink: Mesa's GL on Vulkan runs on lavapipe, its software Vulkan
  mesa-vulkan-drivers
  # tests: GoogleTest, Xvfb for X11 apps, glmark2 as a real app; piglit and
  # wflinfo (without it piglit skips every test that names a GL version)
  libgtest-dev xvfb xauth glmark2-es2-x11 piglit waffle-utils
  # tests: libGL.so.1 in a traced app (gltrace warns about GLX); desktop GL's
  # headers and GLVND's libOpenGL.so (a desktop GL app on EGL)
  libgl1 libgl-dev libopengl-dev
  # tests/install: the installed completion as an interactive shell loads it
  bash-completion
  # tests/surface: a replay's peak memory (/usr/bin/time -f %M); tests/surface_record:
  # the processes a client left behind (ps)
  time procps
  # tests/real_apps: real programs that use EGL + GLES in other ways (Wayland
  # clients and compositor, eglut demos, SDL2, GStreamer GL, GTK 4, mpv, Qt 6,
  # glmark2's desktop GL build on EGL)
  weston mesa-utils-bin libsdl2-tests glmark2-wayland gstreamer1.0-tools gstreamer1.0-gl
  gstreamer1.0-plugins-base gtk-4-examples mpv qmlscene-qt6 qml6-module-qtquick
  qml6-module-qtquick-window qml6-module-qtqml-workerscript qt6-wayland
  # tests/real_apps: GLX programs (glxgears, glmark2's GLX build)
  mesa-utils glmark2-x11
  # tests of Wayland apps: a client's headers and xdg-shell
  libwayland-dev wayland-protocols
  # gltrace surface record: its weston module (libweston 10)
  libweston-10-dev
  # checks
  clang-format clang-tidy
  # real headless browser tests, driven by playwright-core from npm (see
  # below): gltrace view (tests/view_browser), the Chrome JSON export in
  # speedscope (tests/outputs/viewer)
  chromium
  # trace format: zstd chunks; protoc decodes records in tests, with the
  # descriptor.proto of libprotobuf-dev to read its own descriptor sets;
  # libFuzzer (clang)
  libzstd-dev protobuf-compiler libprotobuf-dev clang libclang-rt-14-dev
  # PNG output (gltrace frames, replay --snapshot)
  libpng-dev
  # the trace layer's blob hash (XXH3-128, header-only use); error-mode
  # stacks symbolized by libdw (headers; libdw1 is loaded when needed)
  libxxhash-dev libdw-dev
  # JSON: gltrace surface create/describe's descriptions, glreplay
  # --state-worker's protocol; the state worker's tests decode PNGs with zlib
  nlohmann-json3-dev zlib1g-dev
  # gltrace check: its expectations file (TOML); tests/check reads its JUnit
  # XML with a JUnit reader of its own
  libtomlplusplus-dev python3-junitparser
  # gltrace view: its HTTP server, JSON and regular expressions
  libcpp-httplib-dev libre2-dev
)
if [ "${1:-}" = "--bench" ]; then
  # apitrace and eglretrace: the reference tools/bench.sh measures against;
  # valgrind: instruction counts (callgrind), stable where times are not
  packages+=(apitrace apitrace-tracers valgrind)
elif [ $# -gt 0 ]; then
  echo "usage: tools/deps.sh [--bench]" >&2
  exit 2
fi

# Node.js and npm run the browser tests' driver. Machine images that ship
# their own node (and npm) must keep it: Debian's npm conflicts with it.
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  packages+=(nodejs npm)
fi

# npm_ci: each browser test's packages, from its lock file, when its
# node_modules does not hold exactly what the lock file says (playwright-core
# downloads no browser: the tests use Debian's chromium).
npm_ci() {
  local root dir
  root="$(cd "$(dirname "$0")/.." && pwd)"
  for dir in "$root/tests/view_browser" "$root/tests/outputs/viewer"; do
    if ! cmp -s "$dir/package-lock.json" "$dir/node_modules/.gltrace-package-lock.json"; then
      echo "deps: npm ci in ${dir#"$root"/}"
      (cd "$dir" && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund --loglevel=error >/dev/null)
      cp "$dir/package-lock.json" "$dir/node_modules/.gltrace-package-lock.json"
    fi
  done
}

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if [ ${#missing[@]} -eq 0 ]; then
  npm_ci
  exit 0
fi
echo "deps: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
$SUDO apt-get update -qq
# Quiet on success; apt's own messages say why when it fails.
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
npm_ci
