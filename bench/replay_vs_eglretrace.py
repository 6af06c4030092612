#!/usr/bin/env python3
"""Replay speed against apitrace's eglretrace, on the same workload in the
same run: the demo traced by both tools, each trace replayed as fast as
possible, headless. Per-call replay overhead = (replay wall time - the app's
own wall time) / calls.

  bench/replay_vs_eglretrace.py BUILD_DIR [--frames N] [--runs R]
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
    ap.add_argument("--frames", type=int, default=1000)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    if shutil.which("eglretrace") is None:
        sys.exit("eglretrace is not installed (Debian package apitrace)")
    gltrace = os.path.join(args.build, "bin", "gltrace")
    demo, env = demo_workload(args.build, args.frames)
    env["WAFFLE_PLATFORM"] = "surfaceless_egl"  # eglretrace --headless needs it here
    tmp = tempfile.mkdtemp()
    ours, theirs = os.path.join(tmp, "demo.gltrace"), os.path.join(tmp, "demo.trace")
    subprocess.run([gltrace, "trace", "-o", ours, "--", *demo], check=True, env=env,
                   stdout=subprocess.DEVNULL)
    subprocess.run(["apitrace", "trace", "--api", "egl", "-o", theirs, *demo], check=True,
                   env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    info = subprocess.run([gltrace, "info", ours], check=True, capture_output=True,
                          text=True).stdout
    calls = int(re.search(r"calls:\s+(\d+)", info).group(1))

    print(f"workload: gltrace-demo, {args.frames} frames, {calls} calls (best of {args.runs})")
    # glreplay keeps a 16 MiB heap pad (mallopt); the second comparison gives
    # the app and eglretrace the same (see heap_padded).
    for label, run_env in (("as installed", env),
                           ("same 16 MiB heap pad for all", heap_padded(env))):
        native, ours_time, theirs_time = best_times(
            [demo, [gltrace, "replay", "-n", "--benchmark", ours],
             ["eglretrace", "-b", "--headless", theirs]], args.runs, run_env)
        per_call = lambda t: (t - native) * 1e9 / calls  # noqa: E731
        print(f" {label}:")
        print(f"  app itself             {native:8.3f} s")
        print(f"  gltrace replay -n      {ours_time:8.3f} s   overhead {per_call(ours_time):8.1f} ns/call")
        print(f"  eglretrace -b          {theirs_time:8.3f} s   overhead {per_call(theirs_time):8.1f} ns/call")
        ratio = per_call(ours_time) / per_call(theirs_time) if per_call(theirs_time) > 0 else float("nan")
        print(f"  overhead ratio gltrace/eglretrace: {ratio:.2f} (target <= 0.33)")
    shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
