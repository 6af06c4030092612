#!/usr/bin/env bash
# Installs gltrace into a temporary DESTDIR and prefix and uses it from there
# only, as a user would: trace, replay --compare, run --layers, man pages,
# bash completion, and a layer of its own built out of tree against the
# installed package with CMake and with pkg-config.
#   install_test.sh BUILD_DIR SOURCE_DIR LIBDIR TEST_APP [--no-man]
set -euo pipefail
build=$1 source=$2 libdir=$3 test_app=$4
man=yes
[ "${5:-}" = --no-man ] && man=no

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export XDG_RUNTIME_DIR="$work/runtime" XDG_CONFIG_HOME="$work/config"
mkdir -m 700 "$XDG_RUNTIME_DIR"

fail() {
  echo "FAIL: $*" >&2
  exit 1
}
step() { echo "-- $*"; }

# The prefix is one no test machine has; DESTDIR must keep every file in $work.
prefix=/opt/gltrace-install-test
step "DESTDIR=$work/dest cmake --install --prefix $prefix"
# With a umask that lets the group write: the loader refuses layers under a
# group-writable directory, so the install must not create one whatever the umask.
(umask 002 && DESTDIR="$work/dest" cmake --install "$build" --prefix "$prefix") >"$work/install.log" ||
  fail "cmake --install failed: $(cat "$work/install.log")"
[ ! -e "$prefix" ] || fail "$prefix exists: DESTDIR was not honoured"
root="$work/dest$prefix"
# The manifest names each file as under the prefix; DESTDIR holds them.
while read -r file; do
  case "$file" in "$prefix/"*) ;; *) fail "installed outside the prefix: $file" ;; esac
  [ -e "$work/dest$file" ] || [ -L "$work/dest$file" ] || fail "not in DESTDIR: $file"
done <"$build/install_manifest.txt"
export PATH="$root/bin:$PATH"
[ "$(command -v gltrace)" = "$root/bin/gltrace" ] || fail "gltrace is not the installed one"

step "layout"
expect() { [ -e "$root/$1" ] || fail "not installed: $1"; }
for path in bin/gltrace bin/glreplay bin/gltrace-demo lib/gltrace/libgltrace.so \
  lib/gltrace/layers/libGLES_trace.so lib/gltrace/layers/libGLES_layer_counting.so \
  include/gltrace/gles_layer.h include/gltrace/live_layer.h share/gltrace/android_layer.map \
  "$libdir/pkgconfig/gltrace.pc" "$libdir/cmake/gltrace/gltraceConfig.cmake" \
  "$libdir/cmake/gltrace/gltraceConfigVersion.cmake" "$libdir/cmake/gltrace/gltraceTargets.cmake" \
  share/bash-completion/completions/gltrace share/bash-completion/completions/glreplay \
  share/doc/gltrace/README.md share/doc/gltrace/examples/layers/CMakeLists.txt \
  share/doc/gltrace/examples/layers/passive_layer.cpp; do
  expect "$path"
done
for name in libEGL.so.1 libEGL.so libGLESv2.so.2 libGLESv2.so libGLESv1_CM.so.1 libGLESv1_CM.so; do
  link="$root/lib/gltrace/dropin/$name"
  if [ ! -L "$link" ] || [ "$(readlink "$link")" != ../libgltrace.so ]; then
    fail "lib/gltrace/dropin/$name is not a link to ../libgltrace.so"
  fi
done
# Test-only and benchmark-only files stay in the build tree.
for path in lib/gltrace/layers/libGLES_layer_passthrough.so bin/gltrace-cli-app bin/cli_test; do
  [ ! -e "$root/$path" ] || fail "installed, but only tests or benchmarks use it: $path"
done

step "no build paths, libraries found"
while read -r file; do
  file="$work/dest$file"
  [ -L "$file" ] && continue
  if head -c 4 "$file" | grep -q ELF; then
    dynamic=$(readelf -d "$file")
    if grep -qE "RPATH|RUNPATH" <<<"$dynamic" && grep -qE "$build|$source" <<<"$dynamic"; then
      fail "$file has a build-tree RPATH"
    fi
    if [ -x "$file" ] && ldd "$file" | grep -q "not found"; then
      fail "$file: $(ldd "$file" | grep "not found")"
    fi
  elif grep -qF -e "$build" -e "$source" "$file"; then
    fail "$file names the build or source tree: $(grep -nF -e "$build" -e "$source" "$file" | head -1)"
  fi
done <"$build/install_manifest.txt"

step "versions"
gltrace --version | grep -qE '^gltrace [0-9]+\.[0-9]+\.[0-9]+$' || fail "gltrace --version: $(gltrace --version)"
version=$(gltrace --version | cut -d' ' -f2)
[ "$(glreplay --version)" = "glreplay $version" ] || fail "glreplay --version: $(glreplay --version 2>&1)"

step "gltrace trace the demo, replay --compare (gltrace and glreplay)"
gltrace trace --framebuffer swap -o "$work/demo.gltrace" -- gltrace-demo --frames 5 --verify \
  >"$work/trace.out" 2>&1 || fail "gltrace trace of the demo: $(cat "$work/trace.out")"
grep -q "wrote .* 5 frames" "$work/trace.out" || fail "no 5-frame trace: $(cat "$work/trace.out")"
gltrace replay --compare "$work/demo.gltrace" >"$work/replay.out" 2>&1 ||
  fail "gltrace replay --compare: $(cat "$work/replay.out")"
glreplay --compare "$work/demo.gltrace" >"$work/glreplay.out" 2>&1 ||
  fail "glreplay --compare: $(cat "$work/glreplay.out")"

step "gltrace trace a test app"
gltrace trace --framebuffer swap -o "$work/app.gltrace" -- "$test_app" --frames 3 \
  >"$work/app.out" 2>&1 || fail "gltrace trace of $test_app: $(cat "$work/app.out")"
grep -q "wrote .* 3 frames" "$work/app.out" || fail "no 3-frame trace: $(cat "$work/app.out")"
gltrace replay --compare "$work/app.gltrace" >"$work/app-replay.out" 2>&1 ||
  fail "replay --compare of the test app: $(cat "$work/app-replay.out")"

step "gltrace run --layers with a bundled layer (preloaded and drop-in)"
for mode in "" --dropin; do
  rm -rf "$work/counts" && mkdir "$work/counts"
  GLTRACE_COUNT_DIR="$work/counts" gltrace run $mode --layers libGLES_layer_counting.so -- \
    gltrace-demo --frames 2 >"$work/run.out" 2>&1 || fail "gltrace run $mode: $(cat "$work/run.out")"
  grep -q "libGLES_layer_counting.so: first eglInitialize" "$work/run.out" ||
    fail "gltrace run $mode: the counting layer did not load: $(cat "$work/run.out")"
  grep -qE "^eglSwapBuffers 2$" "$work"/counts/libGLES_layer_counting.so.* ||
    fail "gltrace run $mode: the counting layer did not count 2 swaps"
done

if [ "$man" = yes ]; then
  step "man pages: one per command, each renders"
  mapfile -t commands < <(gltrace --help | sed -n '/^commands:/,/^$/s/^  \([a-z-]*\) .*/\1/p')
  [ ${#commands[@]} -gt 0 ] || fail "gltrace --help lists no commands"
  for page in gltrace glreplay "${commands[@]/#/gltrace-}"; do
    file="$root/share/man/man1/$page.1"
    [ -f "$file" ] || fail "no man page $page(1)"
    MANWIDTH=80 man -l "$file" >"$work/page.txt" 2>"$work/page.err" || fail "man -l $page.1: $(cat "$work/page.err")"
    for section in NAME SYNOPSIS DESCRIPTION; do
      grep -q "^$section" "$work/page.txt" || fail "$page(1) has no $section: $(head -20 "$work/page.txt")"
    done
  done
  # With the prefix's bin on PATH, man finds the pages by name (man-db looks
  # in ../share/man of every PATH directory), as the README says.
  [ "$(env -u MANPATH man -w gltrace-trace)" = "$root/share/man/man1/gltrace-trace.1" ] ||
    fail "man -w gltrace-trace: $(env -u MANPATH man -w gltrace-trace 2>&1)"
  MANWIDTH=80 env -u MANPATH man gltrace-trace >"$work/page.txt" 2>&1 || fail "man gltrace-trace"
  grep -q -- "--framebuffer WHEN" "$work/page.txt" || fail "gltrace-trace(1) lacks --framebuffer"
else
  step "man pages: not built (GLTRACE_BUILD_MANPAGES=OFF)"
fi

step "bash completion"
complete_line() {  # SCRIPT WORDS...: what completing the last word offers
  local script=$1
  shift
  bash --norc --noprofile -c '
    source "$1"; shift
    COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
    "$(complete -p "$1" | sed "s/.*-F \([^ ]*\) .*/\1/")"
    printf "%s\n" "${COMPREPLY[@]}"' bash "$script" "$@"
}
completions="$root/share/bash-completion/completions"
[ "$(complete_line "$completions/gltrace" gltrace tra)" = trace ] || fail "gltrace tra<TAB>"
[ "$(complete_line "$completions/gltrace" gltrace tr | tr '\n' ' ')" = "trace trim " ] ||
  fail "gltrace tr<TAB>: $(complete_line "$completions/gltrace" gltrace tr)"
# From trace's option table (gltrace trace --help-options): --framebuffer
# and --frames.
[ "$(complete_line "$completions/gltrace" gltrace trace --fram | tr '\n' ' ')" = \
  "--framebuffer --frames " ] ||
  fail "gltrace trace --fram<TAB>: $(complete_line "$completions/gltrace" gltrace trace --fram)"
[ "$(complete_line "$completions/gltrace" gltrace trace --start-f)" = --start-frame ] ||
  fail "gltrace trace --start-f<TAB>"
[ "$(complete_line "$completions/gltrace" gltrace help rep)" = replay ] || fail "gltrace help rep<TAB>"
# After the app's name, the app's own words: not gltrace's options.
[ "$(complete_line "$completions/gltrace" gltrace run --layers x.so gltrace-de)" = gltrace-demo ] ||
  fail "gltrace run --layers x.so gltrace-de<TAB>"
[ -z "$(complete_line "$completions/gltrace" gltrace run gltrace-demo --fram)" ] ||
  fail "gltrace run APP --fram<TAB> offered gltrace's options"
[ "$(complete_line "$completions/glreplay" glreplay --compare-r)" = --compare-report ] ||
  fail "glreplay --compare-r<TAB>"
# As an interactive shell does: bash-completion finds the scripts under the
# prefix's share/ (XDG_DATA_DIRS; /usr/local/share is in its default) when the
# command is first completed, and hands APP's words to APP's completion.
bash_completion=/usr/share/bash-completion/bash_completion
[ -f "$bash_completion" ] || fail "no $bash_completion: install bash-completion (tools/deps.sh does)"
loaded=$(XDG_DATA_DIRS="$root/share" bash --norc --noprofile -c '
  source "$1"
  for command in gltrace glreplay; do __load_completion "$command" || echo "$command not loaded"; done
  COMP_WORDS=(gltrace trace -o x.gltrace -- gltrace tra)
  COMP_CWORD=6 COMP_LINE="${COMP_WORDS[*]}" COMP_POINT=${#COMP_LINE}
  _gltrace
  echo "${COMPREPLY[*]}"' bash "$bash_completion" 2>&1)
[ "$loaded" = trace ] || fail "bash-completion: gltrace trace -o x.gltrace -- gltrace tra<TAB>: $loaded"

step "an out-of-tree layer: find_package(gltrace), pkg-config, the installed examples"
layers="$work/layers"
mkdir "$layers"
build_with_cmake() {  # SOURCE BUILD: configure and build against the installed package only
  # Ninja: what tools/deps.sh installs (a fresh machine has no make).
  cmake -G Ninja -S "$1" -B "$2" -DCMAKE_PREFIX_PATH="$root" -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF \
    >"$work/layer.log" 2>&1 || fail "configuring $1: $(cat "$work/layer.log")"
  cmake --build "$2" >"$work/layer.log" 2>&1 || fail "building $1: $(cat "$work/layer.log")"
}
build_with_cmake "$source/tests/install/layer" "$work/layer-cmake"
cp "$work/layer-cmake/libGLES_layer_install_cmake.so" "$layers/"
export PKG_CONFIG_PATH="$root/$libdir/pkgconfig"
pkg-config --exists gltrace || fail "pkg-config finds no gltrace in $PKG_CONFIG_PATH"
[ "$(pkg-config --modversion gltrace)" = "$version" ] || fail "pkg-config --modversion gltrace"
# shellcheck disable=SC2046  # pkg-config's flags are words
cc -shared -fPIC -Wall -Wextra -Werror $(pkg-config --cflags gltrace) '-DINSTALL_LAYER_BUILD="pkg-config"' \
  "$source/tests/install/layer/install_layer.c" -o "$layers/libGLES_layer_install_pc.so" \
  -Wl,--version-script="$(pkg-config --variable=layer_version_script gltrace)" >"$work/layer.log" 2>&1 ||
  fail "the pkg-config layer build: $(cat "$work/layer.log")"
build_with_cmake "$root/share/doc/gltrace/examples/layers" "$work/examples"
for layer in "$layers"/*.so "$work/examples/libGLES_layer_passive.so"; do
  exports=$(nm -D --defined-only "$layer" | awk '{print $3}' | sort | tr '\n' ' ')
  [ "$exports" = "AndroidGLESLayer_GetProcAddress AndroidGLESLayer_Initialize " ] ||
    fail "$layer exports more than the contract: $exports"
done
gltrace run --layers "$layers/libGLES_layer_install_cmake.so:$layers/libGLES_layer_install_pc.so:$work/examples/libGLES_layer_passive.so" \
  -- gltrace-demo --frames 2 >"$work/run.out" 2>&1 || fail "gltrace run with the built layers: $(cat "$work/run.out")"
for marker in "install-layer (cmake): eglInitialize" "install-layer (pkg-config): eglInitialize" \
  "gles-layer-passive: eglChooseConfig enter"; do
  grep -qF "$marker" "$work/run.out" || fail "no '$marker': $(cat "$work/run.out")"
done

echo "install test: all passed"
