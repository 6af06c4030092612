#!/usr/bin/env python3
"""Timed replay against the recorded time: a paced trace of about 10 s
(gltrace-two-threads at 60 frames/s: two threads, two contexts sharing
objects) replayed at the recorded times must end within 1% of the recorded
span; -n replays it as fast as it can. Prints the figures (a benchmark, not
a test: timings depend on the machine's load).

  bench/replay_timing.py BUILD_DIR [--seconds S] [--fps F]
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

LINE = re.compile(r"replayed (\d+) calls, (\d+) frames in ([\d.]+) s \(recorded: ([\d.]+) s\)")


def replay(glreplay, trace, extra):
    start = time.perf_counter()
    out = subprocess.run([glreplay, *extra, trace], check=True, capture_output=True, text=True)
    wall = time.perf_counter() - start
    m = LINE.search(out.stdout)
    if m is None:
        sys.exit("unexpected glreplay output:\n" + out.stdout + out.stderr)
    lateness = re.search(r"timing: .*", out.stdout)
    return (int(m[1]), int(m[2]), float(m[3]), float(m[4]), wall,
            lateness[0] if lateness else "")


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("build")
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--fps", type=float, default=60.0)
    args = ap.parse_args()
    gltrace = os.path.join(args.build, "bin", "gltrace")
    glreplay = os.path.join(args.build, "bin", "glreplay")
    app = os.path.join(args.build, "bin", "gltrace-two-threads")
    frames = int(round(args.seconds * args.fps)) + 1  # frame 0 is at time 0
    with tempfile.TemporaryDirectory() as tmp:
        trace = os.path.join(tmp, "paced.gltrace")
        subprocess.run([gltrace, "trace", "-o", trace, "--", app, "--frames", str(frames),
                        "--fps", str(args.fps)], check=True, stdout=subprocess.DEVNULL)
        calls, nframes, timed, recorded, timed_wall, lateness = replay(glreplay, trace, [])
        _, _, fast, _, fast_wall, _ = replay(glreplay, trace, ["-n"])
    error = (timed - recorded) / recorded * 100
    print(f"replay timing: {calls} calls, {nframes} frames of 2 threads, recorded over "
          f"{recorded:.3f} s")
    print(f"  timed replay:  {timed:.3f} s ({error:+.2f}% of the recorded time; "
          f"target within 1%), process {timed_wall:.3f} s")
    if lateness:
        print(f"  {lateness}")
    print(f"  -n replay:     {fast:.3f} s ({recorded / fast:.0f}x faster than recorded), "
          f"process {fast_wall:.3f} s")
    if abs(error) > 1.0:
        print("  OVER 1%: the timed replay missed its target")


if __name__ == "__main__":
    main()
