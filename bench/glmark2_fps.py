#!/usr/bin/env python3
"""glmark2-es2 frame rates natively, under `gltrace trace` and under
`apitrace trace --api egl`, in one run (the issue's target: a traced scene
keeps at least 95% of its native FPS).

Each scene runs on its own for a few seconds under Xvfb, the three ways
taking turns run after run (the machine's speed drifts; runs in turn see the
same drift); the median FPS of each is compared with the native one.
llvmpipe renders on its own threads here as it would for a user, so the
trace writer's compression competes with it for the cores.

  bench/glmark2_fps.py BUILD_DIR [--scenes build,texture,...] [--seconds S] [--runs R]
"""

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

from timing import Xvfb

# Scenes of different call mixes: few calls and much rasterising (build,
# texture, shading, bump), many small draws (ideas), FBO passes (effect2d,
# desktop), many uniforms (function, loop, conditionals).
SCENES = ["build", "texture", "shading", "bump", "effect2d", "desktop", "ideas", "function",
          "loop", "conditionals"]
FPS = re.compile(r"FPS: (\d+)")


def fps(cmd, env):
    out = subprocess.run(cmd, env=env, capture_output=True, text=True)
    match = FPS.search(out.stdout)
    if out.returncode != 0 or match is None:
        sys.exit(f"{' '.join(cmd)} failed ({out.returncode}): {out.stderr[-500:]}")
    return int(match.group(1))


def calls_per_second(gltrace, path):
    """The traced run's calls per second: what tracing costs grows with it."""
    info = subprocess.run([gltrace, "info", path], check=True, capture_output=True,
                          text=True).stdout
    calls = int(re.search(r"^calls:\s+(\d+)", info, re.M).group(1))
    seconds = float(re.search(r"^duration:\s+([\d.]+) s", info, re.M).group(1))
    return calls / seconds if seconds > 0 else 0.0


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("build")
    ap.add_argument("--scenes", default=",".join(SCENES))
    ap.add_argument("--seconds", type=float, default=3)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--size", default="320x240")
    args = ap.parse_args()
    for tool in ("glmark2-es2", "Xvfb", "apitrace"):
        if shutil.which(tool) is None:
            sys.exit(f"{tool} is not installed (Debian packages glmark2-es2-x11, xvfb, apitrace)")
    gltrace = os.path.join(args.build, "bin", "gltrace")
    tmp = tempfile.mkdtemp()
    ours, theirs = os.path.join(tmp, "t.gltrace"), os.path.join(tmp, "t.trace")
    ways = {
        "native": [],
        "gltrace": [gltrace, "trace", "-o", ours, "--"],
        "apitrace": ["apitrace", "trace", "--api", "egl", "-o", theirs],
    }
    scenes = args.scenes.split(",")
    print(f"glmark2-es2 -s {args.size}, {args.seconds:g} s a scene, median of {args.runs} runs")
    print(f"{'scene':14} {'native':>7} {'gltrace':>8} {'ratio':>6} {'apitrace':>9} {'ratio':>6} "
          f"{'calls/s':>9}")
    worst = 1.0
    with Xvfb() as xvfb:
        env = dict(os.environ, DISPLAY=xvfb.display)
        env.setdefault("XDG_RUNTIME_DIR", tempfile.mkdtemp())
        for scene in scenes:
            app = ["glmark2-es2", "-s", args.size, "-b", f"{scene}:duration={args.seconds:g}"]
            runs = {way: [] for way in ways}
            rates = []
            for _ in range(args.runs):
                for way, prefix in ways.items():
                    runs[way].append(fps(prefix + app, env))
                    if way == "gltrace":
                        rates.append(calls_per_second(gltrace, ours))
                    for path in (ours, theirs):
                        if os.path.exists(path):
                            os.remove(path)
            native, traced, apitraced = (statistics.median(runs[w]) for w in ways)
            worst = min(worst, traced / native)
            print(f"{scene:14} {native:7.0f} {traced:8.0f} {traced / native:6.3f} "
                  f"{apitraced:9.0f} {apitraced / native:6.3f} {statistics.median(rates):9.0f}")
    shutil.rmtree(tmp)
    print(f"lowest gltrace/native: {worst:.3f} (target >= 0.95)")


if __name__ == "__main__":
    main()
