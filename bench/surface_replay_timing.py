#!/usr/bin/env python3
"""surfacereplayer against the recorded time: a created surface trace of
10 s (one 640x480 display at 60 Hz, a full-screen surface updated at 60 Hz,
a 200x200 one at 30 Hz moved every frame) replayed at the recorded times;
prints the elapsed time (wall clock of the whole process, and the replay's
own span) and its error against the recorded span; then the same trace with
-n. A benchmark, not a test: timings depend on the machine's load.

  bench/surface_replay_timing.py BUILD_DIR [--seconds S] [--threads N]
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

LINE = re.compile(r"replayed (\d+) increments, (\d+) VSyncs \((\d+) images\) in ([\d.]+) s "
                  r"\(recorded: ([\d.]+) s\)")


def description(seconds):
    to = f"{seconds}s"
    moves = [{"t": int(k * 1e9 / 60),
              "transaction": {"surfaces": [{"id": 2, "position": [k % 440, (2 * k) % 280]}]}}
             for k in range(int(seconds * 60) + 1)]
    return {
        "events": [
            {"t": 0, "display": {"id": 1, "name": "bench", "w": 640, "h": 480}},
            {"t": 0, "surface": {"id": 1, "name": "background"}},
            {"t": 0, "surface": {"id": 2, "name": "moving"}},
            {"t": 0, "transaction": {"surfaces": [{"id": 2, "layer": 1, "alpha": 0.75}]}},
        ] + moves,
        "updates": [
            {"surface": 1, "rate_hz": 60, "from": 0, "to": to, "w": 640, "h": 480},
            {"surface": 2, "rate_hz": 30, "from": 0, "to": to, "w": 200, "h": 200},
        ],
        "vsync": [{"display": 1, "rate_hz": 60, "from": 0, "to": to}],
    }


def replay(build, trace, extra):
    start = time.perf_counter()
    out = subprocess.run([os.path.join(build, "bin", "surfacereplayer"), *extra, trace],
                         capture_output=True, text=True)
    wall = time.perf_counter() - start
    m = LINE.search(out.stdout)
    if out.returncode != 0 or m is None:
        sys.exit("surfacereplayer failed:\n" + out.stdout + out.stderr)
    lateness = re.search(r"VSync lateness .*", out.stdout)
    return int(m[1]), int(m[2]), float(m[4]), float(m[5]), wall, lateness[0] if lateness else ""


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("build")
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--threads", default="3")
    args = parser.parse_args()
    os.environ.setdefault("XDG_RUNTIME_DIR", tempfile.mkdtemp())
    with tempfile.TemporaryDirectory() as work:
        desc = os.path.join(work, "bench.json")
        trace = os.path.join(work, "bench.surf")
        with open(desc, "w") as f:
            json.dump(description(args.seconds), f)
        subprocess.run([os.path.join(args.build, "bin", "gltrace"), "surface", "create", desc,
                        "-o", trace], check=True, capture_output=True)
        increments, vsyncs, seconds, recorded, wall, lateness = replay(
            args.build, trace, ["-t", args.threads])
        print(f"timed: {increments} increments, {vsyncs} VSyncs; recorded {recorded:.3f} s")
        print(f"  replay span {seconds:.3f} s: error {seconds - recorded:+.3f} s "
              f"({100 * (seconds - recorded) / recorded:+.2f}%)")
        print(f"  process wall clock {wall:.3f} s (EGL start-up and exit included): error "
              f"{wall - recorded:+.3f} s ({100 * (wall - recorded) / recorded:+.2f}%)")
        if lateness:
            print(f"  {lateness}")
        _, _, fast, _, fast_wall, _ = replay(args.build, trace, ["-n", "-t", args.threads])
        print(f"-n: {fast:.3f} s ({vsyncs / fast:.0f} VSyncs/s), process {fast_wall:.3f} s")


if __name__ == "__main__":
    main()
