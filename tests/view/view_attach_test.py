"""gltrace view --attach: a traceable gltrace-demo captured while the viewer
serves the capture. The API shows frames growing while the app runs; a call
of a streamed frame decodes, its image serves, the state worker answers at
it; SIGINT stops the capture and the viewer, leaving a complete trace that
`gltrace info` and `gltrace view` read; an app that exits, or `gltrace
detach`, ends the stream and the viewer keeps serving the finished trace; a
port that is taken stops the capture it started; the app is found by name or
pid; a bad pid or a dead app is one error line and exit status 1.

    view_attach_test.py BUILD_DIR WORK_DIR
"""

import http.client
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from png_rgba import read_png_bytes  # noqa: E402

BUILD, WORK = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
GLTRACE = os.path.join(BUILD, "bin", "gltrace")
DEMO = os.path.join(BUILD, "bin", "gltrace-demo")
RUNTIME = tempfile.mkdtemp()
ENV = dict(os.environ, XDG_RUNTIME_DIR=RUNTIME, XDG_CONFIG_HOME=os.path.join(RUNTIME, "config"),
           GLTRACE_SYSTEM_SETTINGS="/nonexistent", LP_NUM_THREADS="0")
for name in ("DISPLAY", "WAYLAND_DISPLAY", "LD_PRELOAD", "DEBUG_GLES_LAYERS", "GLTRACE_LAYER_PATH",
             "GLTRACE_TRACE_FILE", "GLTRACE_LIVE"):
    ENV.pop(name, None)
URL_LINE = re.compile(r"^gltrace view: http://127\.0\.0\.1:(\d+)/\?token=([0-9a-f]{32})$")
# Bounds on waits: generous, what is tested is that a thing comes at all.
PATIENCE_S = 120

failures = []
passed = []
processes = []


def check(condition, what):
    if condition:
        passed.append(what)
    else:
        failures.append(what)
        print("FAIL:", what, flush=True)
    return condition


def run(args):
    return subprocess.run(args, env=ENV, capture_output=True, text=True, check=False, timeout=300)


def wait_for(what, predicate):
    deadline = time.monotonic() + PATIENCE_S
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.1)
    sys.exit(f"gave up waiting: {what}")


def start_demo(*args):
    """A traceable gltrace-demo (gltrace run replaces itself with it: same pid)."""
    demo = subprocess.Popen([GLTRACE, "run", "--traceable", "--", DEMO, "--fps", "60", *args], env=ENV,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    processes.append(demo)
    socket_path = os.path.join(RUNTIME, "gltrace", f"gltrace-{demo.pid}.sock")
    wait_for("the demo's control socket", lambda: os.path.exists(socket_path) or demo.poll() is not None)
    if demo.poll() is not None:
        sys.exit(f"the demo exited at start: {demo.stderr.read()}")
    return demo


class LiveViewer:
    def __init__(self, target, *options):
        self.proc = subprocess.Popen([GLTRACE, "view", "--no-browser", "--port", "0", "--attach", target, *options],
                                     env=ENV, cwd=WORK, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        processes.append(self.proc)
        line = self.proc.stdout.readline().strip()
        m = URL_LINE.match(line)
        if not m:
            self.proc.kill()
            sys.exit(f"gltrace view --attach printed {line!r}; stderr: {self.proc.stderr.read()}")
        self.port, self.token = int(m.group(1)), m.group(2)
        # Its messages as they come: the test waits for one (a pipe read only
        # at the end could not be waited on).
        self.err_lines = []
        self.err_reader = threading.Thread(target=lambda: self.err_lines.extend(self.proc.stderr), daemon=True)
        self.err_reader.start()

    def said(self, text):
        return any(text in line for line in list(self.err_lines))

    def get(self, path):
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=300)
        conn.request("GET", path + ("&" if "?" in path else "?") + "token=" + self.token)
        resp = conn.getresponse()
        body = resp.read()
        conn.close()
        return resp.status, resp.getheader("Content-Type"), body

    def json(self, path):
        status, _, body = self.get(path)
        return status, json.loads(body)

    def trace(self):
        return self.json("/api/trace")[1]

    def end(self, sig):
        self.proc.send_signal(sig)
        self.proc.wait(timeout=PATIENCE_S)
        self.err_reader.join(timeout=PATIENCE_S)
        return self.proc.returncode, "".join(self.err_lines)


def test_live_capture_then_sigint():
    demo = start_demo("--frames", "1000000")
    output = os.path.join(WORK, "live.gltrace")
    # By name, as gltrace attach finds it.
    v = LiveViewer("gltrace-demo", "--framebuffer", "swap", "-o", output)
    first = wait_for("frames in the live trace", lambda: (lambda t: t if t["frames"] >= 3 else None)(v.trace()))
    check(first["live"] and first["indexing"], "/api/trace says live while the capture streams")
    check(first["process"]["name"] == "gltrace-demo", "the live trace's process")
    check(first["path"] == output, "the trace is the --output file")
    later = wait_for("more frames", lambda: (lambda t: t if t["frames"] >= first["frames"] + 20 else None)(v.trace()))
    check(later["live"] and later["calls"] > first["calls"] and later["size"] > first["size"],
          f"frames, calls and size grow: {first['frames']} -> {later['frames']} frames")
    status, listing = v.json("/api/frames?from=0&count=100000")
    check(status == 200 and listing["total"] >= later["frames"], "/api/frames lists the frames so far")

    # A streamed frame: its calls decode, its image serves, the worker answers at its last call.
    frame = listing["frames"][2]
    status, page = v.json("/api/calls?frame=2&from=0&count=10000")
    check(status == 200 and page["total"] == frame["calls"] and len(page["calls"]) == frame["calls"],
          "a streamed frame's calls decode")
    names = [c["name"] for c in page["calls"]]
    check("eglSwapBuffers" in names and any(n.startswith("glDraw") for n in names),
          f"the frame has its draws and its swap: {names[:5]}...")
    status, call = v.json(f"/api/call?call={frame['last_call']}")
    check(status == 200 and call["frame"] == 2, "a streamed call's details")
    status, kind, body = v.get("/api/image?frame=2")
    check(status == 200 and kind == "image/png", f"the streamed frame's image serves ({status})")
    if status == 200:
        width, height, _ = read_png_bytes(body)
        check(width > 0 and height > 0, f"the image decodes ({width}x{height})")
    status, state = v.json(f"/api/state?call={frame['last_call']}")
    check(status == 200 and state.get("call") == frame["last_call"],
          f"the state worker answers at a streamed call: {str(state)[:200]}")

    # A call not written yet: the worker says so (it reads on at the next request).
    status, state = v.json("/api/state?call=1000000000")
    check(status == 404 and "is not written yet" in state.get("error", ""),
          f"a call not written yet is said to be so ({status}): {state}")

    code, err = v.end(signal.SIGINT)
    check(code == 0, f"SIGINT ends the viewer with status 0 ({code}): {err[-2000:]}")
    check("stopping the capture" in err and "wrote" in err, f"it says it stopped and what it wrote: {err[-600:]}")
    check(demo.poll() is None, "the app keeps running")
    info = run([GLTRACE, "info", output])
    check(info.returncode == 0 and "complete:     yes (closed cleanly)" in info.stdout,
          f"gltrace info: the trace is complete: {info.stdout[-300:]} {info.stderr}")
    frames = int(re.search(r"^frames:\s+(\d+)", info.stdout, re.M).group(1)) if re.search(
        r"^frames:\s+(\d+)", info.stdout, re.M) else -1
    check(frames >= later["frames"], f"every streamed frame is in the file ({frames} >= {later['frames']})")

    # The finished file opens in a viewer of its own, whole, without warnings.
    viewer = subprocess.Popen([GLTRACE, "view", "--no-browser", "--port", "0", output], env=ENV,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    processes.append(viewer)
    m = URL_LINE.match(viewer.stdout.readline().strip())
    if check(m is not None, "gltrace view opens the finished trace"):
        v.port, v.token = int(m.group(1)), m.group(2)
        done = wait_for("the finished trace indexed", lambda: (lambda t: t if not t["indexing"] else None)(v.trace()))
        check(not done["live"] and not done["warnings"] and done["frames"] >= later["frames"],
              f"the finished trace reads whole: {done['frames']} frames, warnings {done['warnings']}")
    viewer.terminate()
    viewer.wait(timeout=PATIENCE_S)
    demo.kill()
    demo.wait()


def test_app_exit_ends_the_stream():
    # 150 frames at 60 fps: the app exits while the viewer runs.
    demo = start_demo("--frames", "150")
    v = LiveViewer(str(demo.pid))  # by pid; the default output name
    demo.wait(timeout=PATIENCE_S)
    done = wait_for("the stream's end", lambda: (lambda t: t if not t["indexing"] else None)(v.trace()))
    check(not done["live"], "/api/trace says live: false once the app exited")
    check(done["frames"] > 0 and not done["warnings"],
          f"the finished trace is served: {done['frames']} frames, warnings {done['warnings']}")
    name = os.path.basename(done["path"])
    check(re.fullmatch(rf"gltrace-demo-{demo.pid}-\d{{8}}-\d{{6}}\.gltrace", name) is not None,
          f"the default output is named for the process: {name}")
    check(os.path.dirname(done["path"]) in ("", ".") or os.path.samefile(os.path.dirname(done["path"]) or ".", WORK),
          "the default output is in the current directory")
    status, _, _ = v.get("/api/calls?frame=0&from=0&count=10")
    check(status == 200, "the viewer keeps serving after the capture ended")
    check(v.proc.poll() is None, "the viewer is still running")
    code, err = v.end(signal.SIGTERM)
    check(code == 0, f"SIGTERM ends it with status 0 ({code}): {err[-1000:]}")
    check("the capture ended" in err, f"it said the capture ended: {err[-600:]}")
    info = run([GLTRACE, "info", os.path.join(WORK, name)])
    check(info.returncode == 0 and "closed cleanly" in info.stdout, "the app's exit left a complete trace")


def test_detach_ends_the_stream():
    demo = start_demo("--frames", "1000000")
    v = LiveViewer(str(demo.pid), "-o", os.path.join(WORK, "detached.gltrace"))
    wait_for("frames in the live trace", lambda: v.trace()["frames"] >= 2)
    r = run([GLTRACE, "detach", str(demo.pid)])
    check(r.returncode == 0, f"gltrace detach: {r.stderr}")
    done = wait_for("the stream's end", lambda: (lambda t: t if not t["indexing"] else None)(v.trace()))
    check(not done["live"] and done["frames"] >= 2 and not done["warnings"],
          f"detached: the finished trace is served ({done['frames']} frames, warnings {done['warnings']})")
    # The trace's footer comes before the capture's end (its final status
    # and summary): a Ctrl-C in between stops the capture, as it should.
    wait_for("the viewer says the capture ended", lambda: v.said("the capture ended"))
    check(v.proc.poll() is None and demo.poll() is None, "the viewer and the app keep running")
    code, err = v.end(signal.SIGINT)
    check(code == 0 and "the capture ended" in err, f"Ctrl-C then ends the viewer, status 0 ({code}): {err[-400:]}")
    demo.kill()
    demo.wait()


def test_bad_targets():
    r = run([GLTRACE, "view", "--no-browser", "--attach", "999999"])
    lines = r.stderr.strip().splitlines()
    check(r.returncode == 1 and len(lines) == 1 and "no traceable process '999999'" in lines[0],
          f"a bad pid: one error line, exit 1 ({r.returncode}): {r.stderr}")
    check(r.stdout == "", "nothing served for a bad pid")
    # An app that was traceable and is gone.
    demo = start_demo("--frames", "1")
    demo.wait(timeout=PATIENCE_S)
    r = run([GLTRACE, "view", "--no-browser", "--attach", str(demo.pid)])
    lines = r.stderr.strip().splitlines()
    check(r.returncode == 1 and len(lines) == 1 and str(demo.pid) in lines[0],
          f"a dead app: one error line, exit 1 ({r.returncode}): {r.stderr}")
    r = run([GLTRACE, "view", "--attach", "1", "some.gltrace"])
    check(r.returncode == 2 and "not both" in r.stderr, f"TRACE and --attach: a usage error: {r.stderr}")
    r = run([GLTRACE, "view", "-o", "x.gltrace", "some.gltrace"])
    check(r.returncode == 2 and "--attach" in r.stderr, f"--output without --attach: a usage error: {r.stderr}")


def test_port_in_use():
    """The capture starts before the server listens: a port that is taken
    ends it at once, its trace finished, and the app can be attached again."""
    demo = start_demo("--frames", "1000000")
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    output = os.path.join(WORK, "port.gltrace")
    r = run([GLTRACE, "view", "--no-browser", "--port", str(taken.getsockname()[1]), "-o", output,
             "--attach", str(demo.pid)])
    taken.close()
    check(r.returncode == 1 and "cannot listen" in r.stderr, f"a taken port: exit 1 ({r.returncode}): {r.stderr}")
    info = run([GLTRACE, "info", output])
    check(info.returncode == 0 and "closed cleanly" in info.stdout, f"the trace is finished: {info.stdout[-200:]}")
    ps = wait_for("the app idle again", lambda: "idle" in run([GLTRACE, "ps"]).stdout)
    check(ps, "the app can be attached again")
    demo.kill()
    demo.wait()


def main():
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    try:
        test_bad_targets()
        test_live_capture_then_sigint()
        test_app_exit_ends_the_stream()
        test_detach_ends_the_stream()
        test_port_in_use()
    finally:
        for p in processes:
            if p.poll() is None:
                p.kill()
                p.wait()
        shutil.rmtree(RUNTIME, ignore_errors=True)
    if failures:
        print(f"{len(failures)} checks failed")
        sys.exit(1)
    print(f"all {len(passed)} checks passed")


main()
