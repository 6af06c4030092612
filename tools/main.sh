#!/usr/bin/env bash
# The main job: build gltrace, then run the bundled demo, headless, through a
# chain of the seed's example layers and the counting layer, and a real app
# (glmark2-es2 under Xvfb) through the same kind of chain; trace and replay
# them; open a trace in the viewer (a screenshot of the page in headless
# Chromium); record weston's demo clients as a surface trace and replay it
# with surfacereplayer. What it makes to look at is kept in build/main_job/.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="$root/build"
"$root/tools/deps.sh"
"$root/tools/build.sh" "$build" >/dev/null
gltrace="$build/bin/gltrace"

export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-$(mktemp -d)}"
counts="$(mktemp -d)"
trap 'rm -rf "$counts"' EXIT
kept="$build/main_job"
rm -rf "$kept"
mkdir -p "$kept"

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
echo "-- frames 20-24 cut out with a state snapshot (gltrace trim), replayed and compared:"
"$gltrace" trim --frames 20-24 -o "$counts/cut.gltrace" "$trace" 2>&1 | tail -n 1 | sed 's/^/   /'
"$gltrace" replay --compare "$counts/cut.gltrace" 2>&1 | grep '^compare: .* frames' | sed 's/^/   /'
"$gltrace" diff-state "$trace@frame:20" "$counts/cut.gltrace@frame:0" | tail -n 1 | sed 's/^/   /'
echo "-- the same frames 20 times, each from the snapshot (gltrace replay --loop):"
"$gltrace" replay --loop 20 --frames 20-24 --compare "$trace" 2>&1 | grep '^loop:' | sed 's/^/   /'

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

echo
echo "== gltrace view: the demo's trace in the browser (loopback, a token in the URL)"
"$gltrace" view --no-browser --port 0 "$trace" >"$counts/view.out" 2>"$counts/view.err" &
view_pid=$!
for _ in $(seq 100); do grep -q "http://" "$counts/view.out" && break; sleep 0.1; done
url="$(grep -o "http://[^ ]*" "$counts/view.out" | head -n 1)"
echo "   $(head -n 1 "$counts/view.out" | sed 's/token=[0-9a-f]*/token=.../')"
python3 - "$url" <<'PY' | sed 's/^/   /'
import json, sys, urllib.parse, urllib.request
url = urllib.parse.urlparse(sys.argv[1])
token = urllib.parse.parse_qs(url.query)["token"][0]
def get(path):
    with urllib.request.urlopen(f"{url.scheme}://{url.netloc}{path}&token={token}") as r:
        return json.load(r)
t = get("/api/trace?")
print(f"/api/trace: {t['calls']} calls, {t['frames']} frames, images: {t['has_images']}")
calls = get("/api/calls?frame=1&from=0&count=5&filter=^glDraw")
print(f"/api/calls of frame 1 matching ^glDraw: {calls['total']}, first: "
      f"{calls['calls'][0]['seq']} {calls['calls'][0]['name']}({calls['calls'][0]['args'][:60]})")
state = get(f"/api/state?seq={calls['calls'][0]['seq']}")
print(f"/api/state after it (replayed by the state worker): viewport "
      f"{state['state']['pipeline'].get('viewport')}, program "
      f"{state['state']['bindings'].get('current_program')}")
PY
if command -v chromium >/dev/null; then
  # The page, with the frame and the draw above selected, as a browser shows it.
  chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1440,900 \
    --virtual-time-budget=8000 --screenshot="$kept/viewer.png" "$url#frame=1" >/dev/null 2>&1 || true
  [ -s "$kept/viewer.png" ] && echo "   screenshot of the page: $kept/viewer.png"
fi
kill "$view_pid" 2>/dev/null || true
wait "$view_pid" 2>/dev/null || true

if command -v weston >/dev/null && command -v weston-simple-shm >/dev/null; then
  echo
  echo "== surface traces: weston's demo clients recorded under headless weston, then replayed"
  surf="$kept/clients.surface"
  "$gltrace" surface record -o "$surf" --size 640x480 -- sh -c \
    "timeout -s INT 2 weston-simple-shm & timeout -s INT 2 weston-simple-egl & wait" 2>&1 |
    tail -n 2 | sed 's/^/   /'
  echo "-- decoded with protoc (the first surface):"
  protoc --decode=gltrace.surface.Trace -I "$root/proto" "$root/proto/surface.proto" <"$surf" |
    grep -A 8 -m 1 "surface_creation" | sed 's/^/   /' || true  # grep -m stops early
  echo "-- surfacereplayer -n: one composited image per recorded VSync"
  "$build/bin/surfacereplayer" -n -o "$kept/surface_frames" "$surf" 2>&1 | tail -n 2 | sed 's/^/   /'
  echo "   $(ls "$kept/surface_frames" | wc -l) images in $kept/surface_frames"
  if [ -n "${display:-}" ] && [ -f "$counts/glmark2.gltrace" ]; then
    echo "-- the glmark2 trace as a surface trace (gltrace surface from-gl), replayed"
    "$gltrace" surface from-gl -o "$kept/glmark2.surface" "$counts/glmark2.gltrace" 2>&1 |
      tail -n 1 | sed 's/^/   /'
    "$build/bin/surfacereplayer" -n -o "$kept/glmark2_frames" "$kept/glmark2.surface" 2>&1 |
      tail -n 1 | sed 's/^/   /'
  fi
fi
