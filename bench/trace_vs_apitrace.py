#!/usr/bin/env python3
"""Tracing cost against apitrace, on the same workload in the same run.

Runs the bundled demo natively, under `gltrace trace` and under
`apitrace trace --api egl`, then dumps both traces. Prints per-call overhead,
trace bytes per call and dump time, with gltrace/apitrace ratios.

  bench/trace_vs_apitrace.py BUILD_DIR [--frames N] [--runs R]
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

from timing import best_times, demo_workload, heap_padded


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("build")
    ap.add_argument("--frames", type=int, default=2000)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    if shutil.which("apitrace") is None:
        sys.exit("apitrace is not installed (Debian package apitrace)")
    gltrace = os.path.join(args.build, "bin", "gltrace")
    demo, env = demo_workload(args.build, args.frames)
    tmp = tempfile.mkdtemp()
    ours, theirs = os.path.join(tmp, "demo.gltrace"), os.path.join(tmp, "demo.trace")

    subprocess.run([gltrace, "trace", "-o", ours, "--", *demo], check=True, env=env,
                   stdout=subprocess.DEVNULL)
    info = subprocess.run([gltrace, "info", ours], check=True, capture_output=True, text=True).stdout
    calls = int(re.search(r"calls:\s+(\d+)", info).group(1))
    print(f"workload: gltrace-demo, {args.frames} frames, {calls} calls (best of {args.runs})")
    ns = lambda seconds: seconds * 1e9 / calls  # noqa: E731
    # As installed, a tracer's allocations change how often glibc trims the
    # heap under Mesa's per-call buffer copies, which moves the app's own
    # page-fault cost; with the same heap pad for all, the overhead is the
    # tracers' own work (see heap_padded).
    # Start-up (loading the tools, opening files, calibrating clocks) is a
    # fixed cost of some tens of ms that the per-call figure above includes;
    # the same runs with a single frame measure it, and "per call only"
    # subtracts it.
    one_frame = [*demo[:-3], "1", *demo[-2:]]
    for label, run_env in (("as installed", env),
                           ("same 16 MiB heap pad for all", heap_padded(env))):
        tools = (lambda _: [],  # each: output suffix -> the command line before the app's
                 lambda suffix: [gltrace, "trace", "-o", ours + suffix, "--"],
                 lambda suffix: ["apitrace", "trace", "--api", "egl", "-o", theirs + suffix])
        runs = [[*tool(""), *demo] for tool in tools] + [[*tool(".1"), *one_frame] for tool in tools]
        native, traced, apitraced, native_1, traced_1, apitraced_1 = best_times(
            runs, args.runs, run_env)
        over_ours, over_theirs = ns(traced - native), ns(apitraced - native)
        print(f" {label}:")
        print(f"  native                {native:8.3f} s")
        print(f"  gltrace trace         {traced:8.3f} s   overhead {over_ours:8.1f} ns/call")
        print(f"  apitrace trace        {apitraced:8.3f} s   overhead {over_theirs:8.1f} ns/call")
        ratio = over_ours / over_theirs if over_theirs > 0 else float("nan")
        print(f"  overhead ratio gltrace/apitrace: {ratio:.2f} (target <= 0.25)")
        start_ours, start_theirs = traced_1 - native_1, apitraced_1 - native_1
        per_ours, per_theirs = ns(traced - native - start_ours), ns(apitraced - native - start_theirs)
        ratio = per_ours / per_theirs if per_theirs > 0 else float("nan")
        print(f"  start-up: gltrace {start_ours * 1e3:+.0f} ms, apitrace {start_theirs * 1e3:+.0f} ms;"
              f" per call only: {per_ours:.1f} vs {per_theirs:.1f} ns/call, ratio {ratio:.2f}")
    ours_bytes, theirs_bytes = os.path.getsize(ours), os.path.getsize(theirs)
    dump_ours, dump_theirs = best_times([[gltrace, "dump", ours], ["apitrace", "dump", theirs]],
                                        args.runs)
    print(f"  trace size: gltrace {ours_bytes / calls:.1f} B/call, apitrace "
          f"{theirs_bytes / calls:.1f} B/call, ratio {ours_bytes / theirs_bytes:.2f} "
          f"(target <= 1; gltrace also records timing)")
    print(f"  dump: gltrace {dump_ours:.3f} s, apitrace {dump_theirs:.3f} s, "
          f"gltrace {dump_theirs / dump_ours:.1f}x faster (target >= 5)")
    shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
