#!/usr/bin/env bash
# Fuzzes the trace reader, then the control protocol parser for a third of
# the time: tools/fuzz.sh [SECONDS=60] [BUILD_DIR=build-fuzz]
# Builds tests/fuzz as its own small project with clang (libFuzzer, ASan,
# UBSan; only src/common and src/format, no GL), writes the seed corpus and
# runs the fuzzer. Crash inputs land in BUILD_DIR/artifacts/; replay one with
# BUILD_DIR/bin/reader_fuzz FILE.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
seconds="${1:-60}"
build="${2:-$root/build-fuzz}"
CC=clang CXX=clang++ cmake -S "$root/tests/fuzz" -B "$build" -G Ninja \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
ninja -C "$build" reader_fuzz control_fuzz format_fuzz_seeds >/dev/null
corpus="$build/corpus"
mkdir -p "$corpus" "$build/artifacts"
"$build/bin/format_fuzz_seeds" "$corpus"
# -max_len covers the seeds and then some; FUZZ_JOBS=N runs N processes
# sharing the corpus (their output goes to fuzz-*.log).
jobs=()
if [ -n "${FUZZ_JOBS:-}" ]; then jobs=(-jobs="$FUZZ_JOBS" -workers="$FUZZ_JOBS"); fi
"$build/bin/reader_fuzz" -max_total_time="$seconds" -max_len=8192 -rss_limit_mb=2048 \
  -print_final_stats=1 -artifact_prefix="$build/artifacts/" "${jobs[@]}" "$corpus"
mkdir -p "$build/control-corpus"
exec "$build/bin/control_fuzz" -max_total_time="$(( (seconds + 2) / 3 ))" -max_len=4096 \
  -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$build/artifacts/" \
  "$build/control-corpus"
