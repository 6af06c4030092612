#!/usr/bin/env bash
# Runs every test: the suite against Mesa (Debug+RelWithDebInfo build), the
# same suite built with ASan+UBSan, and the format check.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/tools/deps.sh"
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-$(mktemp -d)}"
jobs="$(nproc)"

echo "== format check"
mapfile -t sources < <(cd "$root" && git ls-files '*.cpp' '*.h')
(cd "$root" && clang-format --dry-run --Werror "${sources[@]}")

echo "== sanitizers: ASan + UBSan build"
"$root/tools/build.sh" "$root/build-asan" -DGLTRACE_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug >/dev/null
# The instrumented interposer is preloaded ahead of the instrumented apps, and
# Mesa's own allocations at exit are not ours to report.
ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=0:abort_on_error=1 \
UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir "$root/build-asan" -j"$jobs" --output-on-failure -E 'Glmark2' | tail -n 6

echo "== test suite"
"$root/tools/build.sh" "$root/build" >/dev/null
ctest --test-dir "$root/build" -j"$jobs" --output-on-failure
