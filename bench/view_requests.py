"""gltrace view's GL state requests, per kind: latency and bytes on the wire.

    bench/view_requests.py NAME=BUILD_DIR [NAME=BUILD_DIR ...] [--work DIR] [--repeat N]

Records (once; kept in --work, with the first build's gltrace) a 20-frame
demo trace and a glmark2-es2 trace (the build and texture scenes, under an
Xvfb of its own). Then, for each build and trace, at a draw in the middle of
the trace (the first draw with a texture bound after the middle call):

  - through `gltrace view` (one state worker): each request kind (state,
    framebuffer, texture, buffer, shader), once to move the worker there,
    then --repeat times at the same call (the worker parked there: what is
    measured is the request itself, not the replay up to it): the median
    HTTP latency and the response's bytes (server to page);
    The vertices kind is a draw's vertex table, 100 rows (`/api/draw/vertices`).
  - through the worker alone (`gltrace replay --state-worker`, the pipe the
    viewer reads): the same requests but the vertex table, their median latency and the bytes of
    each reply on the pipe (its JSON line and, where the protocol has one, the
    binary frame after it).

Builds are compared on the same machine in the same run, taking turns per
trace. The query parameter is sent under both of its names (`seq`, before
issue 24, and `call`), so any build answers.
"""

import argparse
import http.client
import json
import os
import re
import statistics
import subprocess
import sys
import time

from timing import demo_workload
from view_load import record, record_glmark2

KINDS = ("state", "framebuffer", "texture", "buffer", "shader", "vertices")
# Measured through the viewer only: a draw's vertex table is one worker
# request since issue 24, before it the server's own state and buffer
# requests, so the pipe has no one request to compare.
HTTP_ONLY = ("vertices",)


class Viewer:
    def __init__(self, gltrace, trace, env):
        self.proc = subprocess.Popen([gltrace, "view", "--no-browser", "--port", "0",
                                      "--state-workers", "1", trace],
                                     env=env, stdout=subprocess.PIPE, text=True)
        m = re.match(r"gltrace view: http://127\.0\.0\.1:(\d+)/\?token=(\w+)",
                     self.proc.stdout.readline())
        self.port, self.token = int(m.group(1)), m.group(2)
        self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=600)
        while self.json("/api/trace")["indexing"]:
            time.sleep(0.01)

    def get(self, path):
        self.conn.request("GET", path + ("&" if "?" in path else "?") + "token=" + self.token)
        resp = self.conn.getresponse()
        return resp.status, resp.read()

    def json(self, path):
        status, body = self.get(path)
        if status != 200:
            sys.exit(f"{path}: {status} {body[:300]!r}")
        return json.loads(body)

    def close(self):
        self.proc.terminate()
        self.proc.wait()


class Worker:
    """`gltrace replay --state-worker` on pipes, counting the bytes of each reply."""

    def __init__(self, gltrace, trace, env):
        self.proc = subprocess.Popen([gltrace, "replay", "--state-worker", trace], env=env,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL)
        self.next_id = 1

    def ask(self, request):
        request = dict(request, id=self.next_id)
        self.next_id += 1
        self.proc.stdin.write((json.dumps(request) + "\n").encode())
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        reply = json.loads(line)
        wire = len(line)
        if "bytes" in reply:  # a binary frame follows the line
            wire += len(self.proc.stdout.read(reply["bytes"]))
        if not reply.get("ok"):
            sys.exit(f"worker: {request}: {reply.get('error')}")
        return reply, wire

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()


def target(v, trace_calls):
    """A draw past the middle with a texture bound and a vertex buffer: the
    call and the names the requests ask for."""
    after = trace_calls // 2
    for _ in range(200):
        found = v.json(f"/api/find?regex=%5EglDraw&after={after}")
        call = found.get("call", found.get("seq"))
        if call is None:
            break
        state = v.json(f"/api/state?seq={call}&call={call}")["state"]
        textures = [t for t in state.get("textures", []) if t.get("texture")]
        buffers = [a["buffer"]["name"] for a in state.get("vertex_arrays", [])
                   if isinstance(a.get("buffer"), dict) and a["buffer"].get("name")]
        program = state.get("program") or {}
        if textures and buffers and program.get("name"):
            # The buffer's size, as the page learns it: a read past its end
            # is refused with it.
            status, body = v.get(f"/api/state/buffer?seq={call}&call={call}&name={buffers[0]}")
            m = re.search(rb"buffer's (\d+) bytes", body)
            size = int(m.group(1)) if status != 200 and m else len(body)
            return {"call": call, "texture": textures[0]["texture"]["name"],
                    "target": textures[0]["target"], "buffer": buffers[0], "buffer_size": size,
                    "program": program["name"]["name"]}
        after = call
    sys.exit("no draw with a texture and a vertex buffer after the middle of the trace")


def http_path(kind, t):
    c = t["call"]
    at = f"seq={c}&call={c}"
    return {
        "state": f"/api/state?{at}",
        "framebuffer": f"/api/state/framebuffer?{at}",
        "texture": f"/api/state/texture?{at}&name={t['texture']}&target={t['target']}",
        "buffer": f"/api/state/buffer?{at}&name={t['buffer']}&size={t['buffer_size']}",
        "shader": f"/api/state/shader?{at}&name={t['program']}",
        "vertices": f"/api/draw/vertices?{at}&count=100",
    }[kind]


def worker_request(kind, t):
    return {
        "state": {"op": "state"},
        "framebuffer": {"op": "framebuffer"},
        "texture": {"op": "texture", "name": t["texture"], "target": t["target"]},
        "buffer": {"op": "buffer", "name": t["buffer"], "size": t["buffer_size"]},
        "shader": {"op": "shader", "name": t["program"]},
    }[kind]


def measure(gltrace, trace, env, t, repeat):
    rows = {}
    v = Viewer(gltrace, trace, env)
    try:
        for kind in KINDS:
            path = http_path(kind, t)
            status, body = v.get(path)  # moves the worker there
            if status != 200:
                sys.exit(f"{path}: {status} {body[:300]!r}")
            times = []
            for _ in range(repeat):
                start = time.perf_counter()
                status, body = v.get(path)
                times.append(time.perf_counter() - start)
            rows[kind] = {"http_ms": statistics.median(times) * 1e3, "http_bytes": len(body)}
    finally:
        v.close()
    w = Worker(gltrace, trace, env)
    try:
        w.ask({"op": "goto", "call": t["call"]})
        for kind in KINDS:
            if kind in HTTP_ONLY:
                rows[kind].update(pipe_ms=float("nan"), pipe_bytes=0)
                continue
            times = []
            for _ in range(repeat):
                start = time.perf_counter()
                _, wire = w.ask(worker_request(kind, t))
                times.append(time.perf_counter() - start)
            rows[kind].update(pipe_ms=statistics.median(times) * 1e3, pipe_bytes=wire)
    finally:
        w.close()
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("builds", nargs="+", help="NAME=BUILD_DIR")
    ap.add_argument("--work", default="/tmp/gltrace-view-requests")
    ap.add_argument("--repeat", type=int, default=15)
    args = ap.parse_args()
    builds = [b.split("=", 1) for b in args.builds]
    os.makedirs(args.work, exist_ok=True)
    first = os.path.join(builds[0][1], "bin", "gltrace")
    demo, env = demo_workload(builds[0][1], 20)
    env = dict(env, LP_NUM_THREADS="0")
    traces = {"demo": os.path.join(args.work, "demo.gltrace"),
              "glmark2": os.path.join(args.work, "glmark2.gltrace")}
    record(first, traces["demo"], demo, env)
    record_glmark2(first, traces["glmark2"], env)

    print(f"{'trace':8} {'request':12} {'build':8} {'http ms':>8} {'http bytes':>11} "
          f"{'pipe ms':>8} {'pipe bytes':>11}")
    for name, trace in traces.items():
        info = subprocess.run([first, "info", trace], capture_output=True, text=True,
                              check=True).stdout
        calls = int(re.search(r"^calls:\s+(\d+)", info, re.M).group(1))
        v = Viewer(first, trace, env)
        try:
            t = target(v, calls)
        finally:
            v.close()
        results = {b: measure(os.path.join(d, "bin", "gltrace"), trace, env, t, args.repeat)
                   for b, d in builds}
        for kind in KINDS:
            for b, _ in builds:
                r = results[b][kind]
                print(f"{name:8} {kind:12} {b:8} {r['http_ms']:8.2f} {r['http_bytes']:11d} "
                      f"{r['pipe_ms']:8.2f} {r['pipe_bytes']:11d}", flush=True)
        print(f"  ({name}: call {t['call']}, texture {t['texture']} {t['target']}, "
              f"buffer {t['buffer']} ({t['buffer_size']} bytes), program {t['program']})")


if __name__ == "__main__":
    main()
