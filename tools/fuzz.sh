#!/usr/bin/env bash
# Fuzzes the trace reader, then the replay's validation (`glreplay --check`,
# no GL) and the control protocol parser for a third of the time each:
# tools/fuzz.sh [SECONDS=60] [BUILD_DIR=build-fuzz]
# Builds tests/fuzz as its own small project with clang (libFuzzer, ASan,
# UBSan; src/common, src/format, the codegen and glreplay's trace source and
# validation, no GL), writes the seed corpora and runs the fuzzers. Crash
# inputs land in BUILD_DIR/artifacts/; replay one with BUILD_DIR/bin/reader_fuzz
# FILE (or replay_check_fuzz, control_fuzz).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
seconds="${1:-60}"
build="${2:-$root/build-fuzz}"
CC=clang CXX=clang++ cmake -S "$root/tests/fuzz" -B "$build" -G Ninja \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
# --quiet: no progress lines, but a failed build says why.
ninja --quiet -C "$build" reader_fuzz replay_check_fuzz control_fuzz format_fuzz_seeds
corpus="$build/corpus"
replay_corpus="$build/replay-corpus"
mkdir -p "$corpus" "$replay_corpus" "$build/artifacts"
"$build/bin/format_fuzz_seeds" "$corpus" "$replay_corpus"
# -max_len covers the seeds and then some; FUZZ_JOBS=N runs N processes
# sharing the corpus (their output goes to fuzz-*.log).
jobs=()
if [ -n "${FUZZ_JOBS:-}" ]; then jobs=(-jobs="$FUZZ_JOBS" -workers="$FUZZ_JOBS"); fi
"$build/bin/reader_fuzz" -max_total_time="$seconds" -max_len=8192 -rss_limit_mb=2048 \
  -print_final_stats=1 -artifact_prefix="$build/artifacts/" "${jobs[@]}" "$corpus"
"$build/bin/replay_check_fuzz" -max_total_time="$(( (seconds + 2) / 3 ))" -max_len=16384 \
  -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$build/artifacts/" "${jobs[@]}" \
  "$replay_corpus"
mkdir -p "$build/control-corpus"
exec "$build/bin/control_fuzz" -max_total_time="$(( (seconds + 2) / 3 ))" -max_len=4096 \
  -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$build/artifacts/" \
  "$build/control-corpus"
