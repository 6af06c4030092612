#!/usr/bin/env bash
# The main job: build gltrace, then run the bundled demo, headless, through a
# chain of the seed's example layers and the counting layer, and a real app
# (glmark2-es2 under Xvfb) through the same kind of chain.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="$root/build"
"$root/tools/deps.sh"
"$root/tools/build.sh" "$build" >/dev/null
gltrace="$build/bin/gltrace"

export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-$(mktemp -d)}"
counts="$(mktemp -d)"
trap 'rm -rf "$counts"' EXIT

echo "== gltrace-demo through passive -> active -> counting -> driver (surfaceless EGL)"
GLTRACE_COUNT_DIR="$counts" "$gltrace" run \
  --layers libGLES_layer_passive.so:libGLES_layer_active.so:libGLES_layer_counting.so \
  -- "$build/bin/gltrace-demo" --frames 60 --verify
echo "-- what the counting layer saw (top 12 functions):"
sort -k2 -n -r "$counts"/libGLES_layer_counting.so.* | head -n 12 | sed 's/^/   /' || true  # head closes the pipe early

echo
echo "== gltrace-demo traced (full mode, framebuffer at every swap)"
trace="$counts/demo.gltrace"
"$gltrace" trace --framebuffer swap -o "$trace" -- "$build/bin/gltrace-demo" --frames 30 --verify
"$gltrace" info "$trace" | sed 's/^/   /'
echo "-- frame 1, draw calls and uniforms only (gltrace dump --frames 1 --function ...):"
"$gltrace" dump --frames 1 --function '^glDraw|^glUniform4fv' "$trace" | head -n 8 | cut -c1-150 | sed 's/^/   /' || true  # head closes the pipe early
echo "-- where the time went (gltrace stats):"
"$gltrace" stats --frames-max 3 "$trace" | head -n 8 | sed 's/^/   /' || true  # head closes the pipe early
"$gltrace" frames -o "$counts/frames" --frames 29 "$trace" | sed 's/^/   /'
echo "-- replayed headless, every frame compared with the captured one (gltrace replay --compare):"
"$gltrace" replay --compare "$trace" 2>&1 | tail -n 4 | sed 's/^/   /'

echo
echo "== live tracing: gltrace-demo runs traceable and idle; gltrace attaches twice, detaches"
"$gltrace" run --traceable -- "$build/bin/gltrace-demo" --frames 240 --fps 60 --verify \
  >"$counts/live.out" 2>"$counts/live.err" &
live_pid=$!
for _ in $(seq 100); do [ -S "$XDG_RUNTIME_DIR/gltrace/gltrace-$live_pid.sock" ] && break; sleep 0.05; done
"$gltrace" ps | sed 's/^/   /'
"$gltrace" attach "$live_pid" -o "$counts/live1.gltrace" --frames 10 2>&1 | sed 's/^/   /'
sleep 0.5
"$gltrace" attach "$live_pid" -o "$counts/live2.gltrace" --frames 5 --framebuffer swap 2>&1 | sed 's/^/   /'
wait "$live_pid"
tail -n 1 "$counts/live.out" | sed 's/^/   /'
"$gltrace" info "$counts/live2.gltrace" | grep -E "format|calls|frames|images" | sed 's/^/   /'

if command -v glmark2-es2 >/dev/null && command -v Xvfb >/dev/null; then
  echo
  echo "== glmark2-es2 (a real app: dlopen + eglGetProcAddress) through counting -> passive, under Xvfb"
  display=":$((100 + RANDOM % 100))"
  Xvfb "$display" -screen 0 1280x1024x24 -nolisten tcp >/dev/null 2>&1 &
  xvfb_pid=$!
  trap 'kill $xvfb_pid 2>/dev/null; rm -rf "$counts"' EXIT
  sleep 1
  rm -f "$counts"/libGLES_layer_counting.so.*
  DISPLAY="$display" GLTRACE_COUNT_DIR="$counts" "$gltrace" run \
    --layers libGLES_layer_counting.so:libGLES_layer_passive.so \
    -- glmark2-es2 -b build:duration=1 -b texture:duration=1 -s 320x240 2>&1 |
    grep -E "^\[|Score|gles-layer|gltrace" | sort | uniq -c | sed 's/^/   /'
  echo "-- what the counting layer saw in glmark2 (top 12 functions):"
  sort -k2 -n -r "$counts"/libGLES_layer_counting.so.* | head -n 12 | sed 's/^/   /' || true  # head closes the pipe early
  echo
  echo "== glmark2-es2 traced (shading and refract scenes), then replayed headless and compared"
  DISPLAY="$display" "$gltrace" trace --framebuffer swap -o "$counts/glmark2.gltrace" -- \
    glmark2-es2 -b shading:duration=1 -b refract:duration=1 -s 320x240 | grep -E "^\[|Score" | sed 's/^/   /'
  "$gltrace" info "$counts/glmark2.gltrace" | grep -E "calls|frames|file size|compression" | sed 's/^/   /'
  "$gltrace" replay --compare "$counts/glmark2.gltrace" 2>&1 | tail -n 4 | sed 's/^/   /'
fi
