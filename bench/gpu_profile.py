#!/usr/bin/env python3
"""What `gltrace replay --profile` measures, on several workloads and drivers:

- add up: each frame's draws' GPU times (the sum of each's own timestamps)
  against the frame's GPU time (its first work's start to its last's end):
  the median and the lowest share over frames (frame 0, where shaders
  compile, and frames a disjoint event touched are left out);
- stable: the same call's GPU time over RUNS replays: for each of the
  workload's ten most expensive calls (by median), the spread
  (max - min) / median and the relative median absolute deviation; the
  table prints the median of those over the ten calls, and the worst;
- found: gltrace-heavy-draw's ten times heavier draw on top of every frame
  after the first;
- cost: a profiled replay's wall time against a plain `replay -n`;
- capture cost: `gltrace trace --gpu-time` against `gltrace trace`, the
  same workload taking turns (median wall time of RUNS each).

The workloads: the demo, gltrace-heavy-draw, and glmark2-es2 scenes traced
under Xvfb (320x240). softpipe renders on the calling thread, so its times
are each call's whole rendering; llvmpipe's are its last tiles' (see
docs/replay.md), so its spreads are wider.

  bench/gpu_profile.py BUILD WORK [--runs N] [--drivers llvmpipe,softpipe]
                       [--scenes build,texture,...] [--reuse] [--capture-only]
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "real_apps"))
import real_apps  # noqa: E402  (its Xvfb)

SCENES = ["build", "texture", "shading", "bump", "effect2d", "ideas", "jellyfish", "terrain"]


def run(cmd, env, **kw):
    return subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, **kw)


def capture(gltrace, trace, argv, env, reuse):
    if reuse and os.path.exists(trace):
        return True
    p = run([gltrace, "trace", "-o", trace, "--"] + argv, env)
    if p.returncode != 0:
        print(f"{os.path.basename(trace)}: capture failed:\n{p.stdout[-1500:]}")
    return p.returncode == 0


def profile(gltrace, trace, driver, env):
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        start = time.perf_counter()
        p = run([gltrace, "replay", "--driver", driver, "--profile=summary,frames,draws",
                 "--profile-top", "0", "--profile-format", "json", "--profile-output", out.name,
                 trace], env)
        seconds = time.perf_counter() - start
        if p.returncode != 0:
            print(f"  {os.path.basename(trace)} on {driver}: replay failed:\n{p.stdout[-1500:]}")
            return None, seconds
        with open(out.name) as f:
            return json.load(f), seconds


def plain_seconds(gltrace, trace, driver, env):
    start = time.perf_counter()
    run([gltrace, "replay", "-n", "--driver", driver, trace], env)
    return time.perf_counter() - start


def add_up(tables):
    shares = [f["gpu busy ms"] / f["gpu ms"] for f in tables["frames"]
              if f["frame"] != 0 and f["gpu ms"] and not f["disjoint"]]
    return (statistics.median(shares), min(shares)) if shares else (None, None)


def stability(runs):
    """The spreads of the ten most expensive calls' GPU times over the runs."""
    times = {}
    for tables in runs:
        for d in tables["draws"]:
            if d["frame"] != 0 and d["gpu ms"] is not None:
                times.setdefault(d["call"], []).append(d["gpu ms"])
    full = {c: t for c, t in times.items() if len(t) == len(runs)}
    top = sorted(full, key=lambda c: statistics.median(full[c]), reverse=True)[:10]
    spreads, mads = [], []
    for c in top:
        m = statistics.median(full[c])
        if m <= 0:
            continue
        spreads.append((max(full[c]) - min(full[c])) / m)
        mads.append(statistics.median(abs(t - m) for t in full[c]) / m)
    if not spreads:
        return None
    return (statistics.median(spreads), max(spreads), statistics.median(mads), max(mads),
            statistics.median(statistics.median(full[c]) for c in top))


def heavy_on_top(tables):
    """Frames after the first whose most expensive work is the 4th draw."""
    by_frame = {}
    for d in tables["draws"]:
        by_frame.setdefault(d["frame"], []).append(d)
    good = total = 0
    for frame, rows in by_frame.items():
        if frame == 0:
            continue
        draws = sorted(r["call"] for r in rows if r["function"] == "glDrawArrays")
        top = max(rows, key=lambda r: r["gpu ms"] or 0)
        total += 1
        good += top["call"] == draws[3]
    return good, total


def capture_cost(gltrace, a, env):
    """trace --gpu-time against trace, on the demo (many small draws: the
    timestamps' cost per call shows), gltrace-heavy-draw and glmark2 scenes."""
    apps = [("demo", [os.path.join(a.build, "bin", "gltrace-demo"), "--frames", "300",
                      "--size", "64x64"], env),
            ("heavy-draw", [os.path.join(a.build, "bin", "gltrace-heavy-draw"), "--frames", "30",
                            "--iterations", "10"], env)]
    xvfb = real_apps.Xvfb(env)
    try:
        x11 = dict(env, DISPLAY=xvfb.display)
        for scene in ("build", "ideas"):
            apps.append((f"glmark2-{scene}", ["glmark2-es2", "-s", "320x240", "-b",
                                              f"{scene}:duration=2"], x11))
        print(f"{'capture':22} {'trace s':>9} {'--gpu-time s':>13} {'ratio':>7} {'gpu times':>10}")
        for name, argv, e in apps:
            times = {False: [], True: []}
            timed = 0
            for _ in range(a.runs):
                for gpu in (False, True):
                    out = os.path.join(a.work, f"capture-{name}.gltrace")
                    cmd = [gltrace, "trace", "-o", out] + (["--gpu-time"] if gpu else []) + \
                        ["--"] + argv
                    start = time.perf_counter()
                    run(cmd, e)
                    times[gpu].append(time.perf_counter() - start)
                    if gpu:
                        timed = run([gltrace, "dump", out], e).stdout.count("// gpu time of call")
            plain, gpu = statistics.median(times[False]), statistics.median(times[True])
            print(f"{name:22} {plain:9.3f} {gpu:13.3f} {gpu / plain:7.3f} {timed:10}", flush=True)
    finally:
        xvfb.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("build")
    ap.add_argument("work")
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--drivers", default="llvmpipe,softpipe")
    ap.add_argument("--scenes", default=",".join(SCENES))
    ap.add_argument("--reuse", action="store_true", help="keep traces already in WORK")
    ap.add_argument("--capture-only", action="store_true", help="only the capture cost")
    a = ap.parse_args()
    gltrace = os.path.join(os.path.abspath(a.build), "bin", "gltrace")
    os.makedirs(a.work, exist_ok=True)
    env = dict(os.environ)
    env.setdefault("XDG_RUNTIME_DIR", tempfile.mkdtemp())
    capture_cost(gltrace, a, env)
    if a.capture_only:
        return
    workloads = []  # (name, trace, drivers)
    drivers = a.drivers.split(",")
    t = os.path.join(a.work, "demo.gltrace")
    if capture(gltrace, t, [os.path.join(a.build, "bin", "gltrace-demo"), "--frames", "30"], env,
               a.reuse):
        workloads.append(("demo", t, drivers))
    t = os.path.join(a.work, "heavy-draw.gltrace")
    if capture(gltrace, t, [os.path.join(a.build, "bin", "gltrace-heavy-draw"), "--frames", "8",
                            "--iterations", "10"], env, a.reuse):
        workloads.append(("heavy-draw", t, drivers))
    xvfb = real_apps.Xvfb(env)
    try:
        x11 = dict(env, DISPLAY=xvfb.display)
        for scene in a.scenes.split(","):
            t = os.path.join(a.work, f"glmark2-{scene}.gltrace")
            # A few dozen small frames: softpipe replays them in seconds.
            if capture(gltrace, t, ["glmark2-es2", "-s", "160x120", "-b",
                                    f"{scene}:duration=0.1"], x11, a.reuse):
                workloads.append((f"glmark2-{scene}", t, drivers))
    finally:
        xvfb.close()

    print(f"{'workload':22} {'driver':9} {'frames':>6} {'add up med':>10} {'min':>6} "
          f"{'top10 ms':>9} {'spread med':>10} {'max':>6} {'MAD med':>8} {'max':>6} "
          f"{'cost':>6}")
    for name, trace, drivers in workloads:
        for driver in drivers:
            runs, seconds = [], []
            for _ in range(a.runs):
                tables, s = profile(gltrace, trace, driver, env)
                if tables is None:
                    break
                runs.append(tables)
                seconds.append(s)
            if not runs:
                continue
            plain = statistics.median(plain_seconds(gltrace, trace, driver, env)
                                      for _ in range(3))
            med, low = add_up(runs[0])
            st = stability(runs)
            frames = len(runs[0]["frames"])
            line = f"{name:22} {driver:9} {frames:6} "
            line += f"{med:10.4f} {low:6.3f} " if med is not None else f"{'-':>10} {'-':>6} "
            if st:
                line += (f"{st[4]:9.3f} {st[0]:10.3f} {st[1]:6.3f} {st[2]:8.3f} {st[3]:6.3f} ")
            else:
                line += f"{'-':>9} {'-':>10} {'-':>6} {'-':>8} {'-':>6} "
            line += f"{statistics.median(seconds) / plain:6.2f}"
            print(line, flush=True)
            if name == "heavy-draw":
                good = [heavy_on_top(r) for r in runs]
                print(f"  heavy draw on top of {sum(g for g, _ in good)} of "
                      f"{sum(t for _, t in good)} frames (frames 1-, {len(runs)} runs)",
                      flush=True)


if __name__ == "__main__":
    main()
