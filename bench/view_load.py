"""gltrace view at scale: the figures issue 14 asks for.

    bench/view_load.py BUILD_DIR [--calls N] [--frame-calls N] [--work DIR]

Records (once; kept in --work) a trace of the bundled demo with about N calls
(default 10 M: the demo makes ~230 calls a frame, so some 43,000 frames at
32x32) and a trace of gltrace-view-app whose frame 1 holds --frame-calls
calls (default 1 M glVertexAttrib1f in one debug group: the demo has no
call-heavy frame). Then, for each, starts `gltrace view --no-browser` and
prints:
  - the time from start to the first frame's calls being served (the page's
    first view), and to the whole index;
  - in the 1 M-call frame: the time to serve a 100-call window in its middle
    and at its end (scrolling), a regex filter over the whole frame, and its
    minimap;
  - the server's peak RSS (VmHWM) after all of it.
Wall times are of one run on this machine (no repetitions: the point is the
order of magnitude against the issue's bounds of 2 s and 300 MB).

Then the GL state moving backward (--backward-only does only this): on a
100-frame demo trace and a glmark2-es2 trace (recorded under an Xvfb of its
own), with one state worker (--state-workers 1: every backward move replays
from the trace's start) and with the default pool of 3, the state at a call
in a frame in the middle of the trace, then --steps backward steps of one
call each: their latency (the HTTP request, median and worst), "settled"
when the background checkpoint job had finished before each step (a user who
looks at each call) and "back to back" without waiting (a key held down); then a move to the
middle of the frame before; and each worker's peak RSS.
"""

import argparse
import http.client
import json
import os
import re
import subprocess
import sys
import tempfile
import time

from timing import demo_workload


def record(gltrace, path, app, env):
    if os.path.exists(path):
        return
    start = time.perf_counter()
    subprocess.run([gltrace, "trace", "-o", path + ".tmp", "--", *app], env=env, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.rename(path + ".tmp", path)
    print(f"recorded {os.path.basename(path)} in {time.perf_counter() - start:.1f} s", flush=True)


def calls_in(gltrace, path):
    out = subprocess.run([gltrace, "info", path], capture_output=True, text=True, check=True).stdout
    return int(re.search(r"^calls:\s+(\d+)", out, re.M).group(1))


class Viewer:
    def __init__(self, gltrace, trace, env, options=()):
        self.start = time.perf_counter()
        self.proc = subprocess.Popen([gltrace, "view", "--no-browser", "--port", "0", *options,
                                      trace], env=env, stdout=subprocess.PIPE, text=True)
        m = re.match(r"gltrace view: http://127\.0\.0\.1:(\d+)/\?token=(\w+)",
                     self.proc.stdout.readline())
        self.port, self.token = int(m.group(1)), m.group(2)
        self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=600)

    def get(self, path):
        self.conn.request("GET", path + ("&" if "?" in path else "?") + "token=" + self.token)
        resp = self.conn.getresponse()
        body = resp.read()
        return resp.status, json.loads(body)

    def timed(self, path):
        start = time.perf_counter()
        status, body = self.get(path)
        if status != 200:
            sys.exit(f"{path}: {status} {body}")
        return time.perf_counter() - start, body

    def first_frame_served(self):
        """Seconds from start until frame 0's first calls came back."""
        while True:
            status, body = self.get("/api/calls?frame=0&from=0&count=100")
            if status == 200 and body["calls"]:
                return time.perf_counter() - self.start
            time.sleep(0.005)

    def indexed(self):
        while self.get("/api/trace")[1]["indexing"]:
            time.sleep(0.01)
        return time.perf_counter() - self.start

    def peak_rss_mb(self):
        with open(f"/proc/{self.proc.pid}/status") as f:
            return int(re.search(r"VmHWM:\s+(\d+) kB", f.read()).group(1)) / 1024

    def close(self):
        self.proc.terminate()
        self.proc.wait()


def record_glmark2(gltrace, path, env):
    """glmark2-es2's build and texture scenes under an Xvfb of its own."""
    if os.path.exists(path):
        return
    read, write = os.pipe()
    xvfb = subprocess.Popen(["Xvfb", "-displayfd", str(write), "-screen", "0", "1280x1024x24",
                             "-nolisten", "tcp"], pass_fds=(write,), stderr=subprocess.DEVNULL)
    os.close(write)
    with os.fdopen(read) as f:
        display = ":" + f.readline().strip()
    try:
        record(gltrace, path, ["glmark2-es2", "-s", "320x240", "-b", "build:duration=1",
                               "-b", "texture:duration=1"], dict(env, DISPLAY=display))
    finally:
        xvfb.terminate()
        xvfb.wait()


def wait_no_job(v):
    while True:
        workers = v.get("/api/state/workers")[1]["workers"]
        if all(w["job"] is None for w in workers):
            return workers
        time.sleep(0.005)


def worker_rss_mb(workers):
    rss = []
    for w in workers:
        try:
            with open(f"/proc/{w['pid']}/status") as f:
                rss.append(int(re.search(r"VmHWM:\s+(\d+) kB", f.read()).group(1)) / 1024)
        except (TypeError, OSError):
            pass
    return rss


def backward_steps(gltrace, trace, env, workers, steps, settled):
    """Latencies (s) of `steps` one-call backward steps from a call in the
    middle frame, the replies' calls replayed, and the workers' peak RSS."""
    v = Viewer(gltrace, trace, env, ["--state-workers", str(workers)])
    v.indexed()
    _, info = v.get("/api/trace")
    _, page = v.get(f"/api/frames?from={info['frames'] // 2}&count=1")
    frame = page["frames"][0]
    call = frame["first_call"] + min(frame["calls"] - 1, max(steps + 1, frame["calls"] * 3 // 4))
    v.timed(f"/api/state?call={call}")
    wait_no_job(v)
    times, replayed = [], []
    for i in range(1, steps + 1):
        t, body = v.timed(f"/api/state?call={call - i}")
        times.append(t)
        replayed.append(body["replayed"])
        if settled:
            wait_no_job(v)
    # Then to the middle of the frame before.
    wait_no_job(v)
    _, page = v.get(f"/api/frames?from={info['frames'] // 2 - 1}&count=1")
    previous = page["frames"][0]
    t_previous, body = v.timed(f"/api/state?call={previous['first_call'] + previous['calls'] // 2}")
    rss = worker_rss_mb(wait_no_job(v))
    v.close()
    return call, times, replayed, (t_previous, body["replayed"]), rss


def backward(gltrace, traces, env, steps):
    for name, trace in traces:
        print(f"{name} ({calls_in(gltrace, trace):,} calls): {steps} backward steps of one call",
              flush=True)
        for workers in (1, 3):
            for settled in (True, False) if workers > 1 else (True,):
                call, times, replayed, previous, rss = backward_steps(gltrace, trace, env, workers,
                                                                      steps, settled)
                times.sort()
                how = "settled" if settled else "back to back"
                print(f"  --state-workers {workers} {how:12} from call {call}: median "
                      f"{times[len(times) // 2] * 1000:.1f} ms, worst {times[-1] * 1000:.1f} ms; "
                      f"calls replayed {min(replayed)}-{max(replayed)}; then the previous frame's "
                      f"middle {previous[0] * 1000:.1f} ms ({previous[1]} calls); worker peak RSS "
                      f"{', '.join(f'{r:.0f}' for r in rss)} MB", flush=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("build")
    parser.add_argument("--calls", type=int, default=10_000_000)
    parser.add_argument("--frame-calls", type=int, default=1_000_000)
    parser.add_argument("--work", default=os.path.join(tempfile.gettempdir(), "gltrace-view-bench"))
    parser.add_argument("--steps", type=int, default=9, help="backward steps measured")
    parser.add_argument("--backward-only", action="store_true",
                        help="only the GL state's backward steps")
    args = parser.parse_args()
    gltrace = os.path.join(args.build, "bin", "gltrace")
    os.makedirs(args.work, exist_ok=True)

    # The demo's calls per frame and at start and end, from two short traces,
    # size the long one.
    counts = []
    for n in (100, 200):
        demo, env = demo_workload(args.build, n)
        probe = os.path.join(args.work, f"demo-probe-{n}.gltrace")
        record(gltrace, probe, demo, env)
        counts.append(calls_in(gltrace, probe))
    backward_traces = [("demo, 100 frames", os.path.join(args.work, "demo-probe-100.gltrace"))]
    glmark2 = os.path.join(args.work, "glmark2.gltrace")
    record_glmark2(gltrace, glmark2, env)
    backward_traces.append(("glmark2-es2 build + texture", glmark2))
    if args.backward_only:
        backward(gltrace, backward_traces, env, args.steps)
        return
    per_frame = (counts[1] - counts[0]) / 100
    fixed = counts[0] - 100 * per_frame
    frames = int((args.calls - fixed) / per_frame) + 1
    demo, env = demo_workload(args.build, frames)
    demo_trace = os.path.join(args.work, f"demo-{args.calls}.gltrace")
    record(gltrace, demo_trace, demo, env)
    heavy_trace = os.path.join(args.work, f"view-app-{args.frame_calls}.gltrace")
    record(gltrace, heavy_trace,
           [os.path.join(args.build, "bin", "gltrace-view-app"), "--frames", "3", "--calls",
            str(args.frame_calls)], env)

    v = Viewer(gltrace, demo_trace, env)
    first = v.first_frame_served()
    whole = v.indexed()
    _, info = v.get("/api/trace")
    _, frames_page = v.get("/api/frames?from=0&count=1")
    middle_frame = info["frames"] // 2
    t_mid, _ = v.timed(f"/api/calls?frame={middle_frame}&from=0&count=100")
    rss = v.peak_rss_mb()
    v.close()
    print(f"demo trace: {info['calls']:,} calls, {info['frames']:,} frames, "
          f"{os.path.getsize(demo_trace) / 1e6:.0f} MB")
    print(f"  first frame's calls served   {first:.3f} s after start")
    print(f"  whole trace indexed          {whole:.3f} s after start")
    print(f"  a frame in the middle        {t_mid * 1000:.1f} ms")
    print(f"  peak RSS                     {rss:.0f} MB")

    v = Viewer(gltrace, heavy_trace, env)
    first = v.first_frame_served()
    whole = v.indexed()
    _, page = v.get("/api/frames?from=1&count=1")
    n = page["frames"][0]["calls"]
    t_middle, _ = v.timed(f"/api/calls?frame=1&from={n // 2}&count=100")
    t_middle2, _ = v.timed(f"/api/calls?frame=1&from={n // 2 + 100}&count=100")
    t_end, _ = v.timed(f"/api/calls?frame=1&from={n - 100}&count=100")
    t_filter, filtered = v.timed("/api/calls?frame=1&from=0&count=100&filter=glPop")
    t_filter_window, _ = v.timed("/api/calls?frame=1&from=0&count=100&filter=glPop")
    t_minimap, _ = v.timed("/api/minimap?frame=1&buckets=2000")
    t_summary, _ = v.timed("/api/frame/summary?frame=1")
    rss = v.peak_rss_mb()
    v.close()
    print(f"{n:,}-call frame ({os.path.getsize(heavy_trace) / 1e6:.1f} MB trace):")
    print(f"  first frame's calls served   {first:.3f} s after start; indexed in {whole:.3f} s")
    print(f"  100 calls in its middle      {t_middle * 1000:.1f} ms (next 100: {t_middle2 * 1000:.1f} ms)")
    print(f"  its last 100 calls           {t_end * 1000:.1f} ms")
    print(f"  regex filter over the frame  {t_filter * 1000:.1f} ms ({filtered['total']} match;"
          f" again, cached: {t_filter_window * 1000:.1f} ms)")
    print(f"  minimap of the frame         {t_minimap * 1000:.1f} ms")
    print(f"  per-function summary         {t_summary * 1000:.1f} ms")
    print(f"  peak RSS                     {rss:.0f} MB")

    backward(gltrace, backward_traces, env, args.steps)


if __name__ == "__main__":
    main()
