#!/usr/bin/env bash
# Runs the benchmarks on an optimized build and prints their figures.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/tools/deps.sh" --bench
"$root/tools/build.sh" "$root/build" >/dev/null
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-$(mktemp -d)}"
"$root/build/bin/gltrace-bench-calls"
"$root/build/bin/gltrace-bench-engine"
"$root/build/bin/gltrace-bench-clock" --seconds 60
if command -v apitrace >/dev/null; then
  python3 "$root/bench/trace_vs_apitrace.py" "$root/build"
else
  echo "apitrace not installed: skipping the comparison (apt-get install apitrace)"
fi
if command -v eglretrace >/dev/null; then
  python3 "$root/bench/replay_vs_eglretrace.py" "$root/build"
fi
if command -v apitrace >/dev/null && command -v eglretrace >/dev/null; then
  # Every call mix, with instruction counts (valgrind's callgrind: stable
  # where times on a shared machine are not).
  python3 "$root/bench/call_mix.py" "$root/build" --callgrind
fi
python3 "$root/bench/replay_timing.py" "$root/build"
# gltrace export (Perfetto) on the demo, glmark2-es2 scenes and the call
# mixes: sizes, encoder and decoder ns per call, callgrind instructions.
python3 "$root/bench/export_speed.py" "$root/build" --callgrind
