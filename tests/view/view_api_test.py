"""gltrace view's HTTP API on its own (protocol B of docs/viewer.md): every
endpoint against real traces (the demo's, gltrace-view-app's), checked
against what `gltrace dump`, `stats` and `frames` say; bad requests; damaged
traces; no file outside the trace served; loopback only.

    view_api_test.py BUILD_DIR WORK_DIR
"""

import http.client
import json
import os
import re
import shutil
import socket
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from png_rgba import read_png_bytes  # noqa: E402

BUILD, WORK = sys.argv[1], sys.argv[2]
GLTRACE = os.path.join(BUILD, "bin", "gltrace")
ENV = dict(os.environ, XDG_RUNTIME_DIR=tempfile.mkdtemp(), LP_NUM_THREADS="0")
ENV.pop("DISPLAY", None)
ENV.pop("WAYLAND_DISPLAY", None)
URL_LINE = re.compile(r"^gltrace view: http://127\.0\.0\.1:(\d+)/\?token=([0-9a-f]{32})$")

failures = []


def check(condition, what):
    if not condition:
        failures.append(what)
        print("FAIL:", what, flush=True)


def run(args, **kwargs):
    return subprocess.run(args, env=ENV, capture_output=True, text=True, check=False, **kwargs)


def record(name, app_args, options=()):
    path = os.path.join(WORK, name + ".gltrace")
    r = run([GLTRACE, "trace", "-o", path, *options, "--", *app_args])
    if r.returncode != 0:
        sys.exit(f"recording {name} failed: {r.stderr}")
    return path


def dump_lines(path, *options):
    """{seq: text} of every call line, and frames as lists of seqs."""
    r = run([GLTRACE, "dump", *options, path])
    calls, frames, current = {}, [], []
    for line in r.stdout.splitlines():
        m = re.match(r"^(\d+) (.*)$", line)
        if m:
            seq = int(m.group(1))
            calls[seq] = m.group(2).split("  // ")[0]
            current.append(seq)
        elif line.startswith("// end of frame"):
            frames.append(current)
            current = []
    if current:
        frames.append(current)
    return calls, frames, r.stdout


class Viewer:
    def __init__(self, trace, *options):
        self.proc = subprocess.Popen([GLTRACE, "view", "--no-browser", "--port", "0", *options, trace],
                                     env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True)
        line = self.proc.stdout.readline().strip()
        m = URL_LINE.match(line)
        if not m:
            self.proc.kill()
            sys.exit(f"gltrace view printed {line!r}; stderr: {self.proc.stderr.read()}")
        self.port, self.token = int(m.group(1)), m.group(2)
        # The index is built in the background: wait until it is complete.
        while self.json("/api/trace")[1]["indexing"]:
            pass

    def get(self, path, token=True, headers=None):
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=300)
        if token:
            path += ("&" if "?" in path else "?") + "token=" + self.token
        conn.request("GET", path, headers=headers or {})
        resp = conn.getresponse()
        body = resp.read()
        conn.close()
        return resp.status, resp.getheader("Content-Type"), body

    def json(self, path, **kwargs):
        status, _, body = self.get(path, **kwargs)
        return status, json.loads(body)

    def close(self):
        alive = self.proc.poll() is None
        self.proc.terminate()
        self.proc.wait(timeout=30)
        return alive


def q(text):
    from urllib.parse import quote
    return quote(text, safe="")


def test_demo(trace):
    calls, frames, _ = dump_lines(trace)
    v = Viewer(trace)
    try:
        status, info = v.json("/api/trace")
        check(status == 200, "/api/trace answers")
        check(info["calls"] == len(calls), f"calls {info['calls']} == dump's {len(calls)}")
        complete = len(frames) - (1 if frames and frames[-1] != [] and info["frames"] < len(frames) else 0)
        check(info["frames"] == complete, f"frames {info['frames']} == dump's {complete}")
        check(info["process"]["name"] == "gltrace-demo", "process name")
        check(info["has_images"] and info["has_thread_time"], "images and thread time")
        check(info["threads"] and info["contexts"][0]["api"] == "OpenGL ES" and info["contexts"][0]["version"] == "3", "threads and contexts")

        # Frames: calls and call numbers as dump groups them; times as stats.
        status, listing = v.json("/api/frames?from=0&count=1000")
        check(status == 200 and listing["total"] == len(frames), "every frame listed")
        stats = run([GLTRACE, "stats", trace]).stdout
        stat_rows = re.findall(r"^(\d+)\s+(\d+)\s+([\d.]+)\s+([\d.]+)$", stats, re.M)
        for f, seqs in zip(listing["frames"], frames):
            check(f["calls"] == len(seqs) and f["first_call"] == seqs[0] and
                  f["last_call"] == seqs[-1], f"frame {f['number']} calls as dump's")
        for number, ncalls, call_ms, frame_ms in stat_rows:
            f = listing["frames"][int(number)]
            check(f["calls"] == int(ncalls), f"frame {number} calls as stats'")
            check(abs(f["wall_ns"] / 1e6 - float(frame_ms)) < 0.0011, f"frame {number} wall time")
            check(abs(f["call_ns"] / 1e6 - float(call_ms)) < 0.0011, f"frame {number} call time")
        check(listing["frames"][1]["draws"] == sum(1 for s in frames[1] if calls[s].startswith("glDraw")),
              "draws counted")

        # Calls: the same text as dump, page by page.
        status, page = v.json("/api/calls?frame=1&from=0&count=100000")
        check(status == 200 and page["total"] == len(frames[1]), "frame 1's calls")
        check(len(page["calls"]) == len(frames[1]), "a huge count is clamped to what there is")
        for row in page["calls"]:
            text = f"{row['name']}({row['args']})" + (f" = {row['result']}" if row["result"] else "")
            if text != calls[row["call"]]:
                check(False, f"call {row['call']}: {text!r} != dump's {calls[row['call']]!r}")
                break
        check([r["pos"] for r in page["calls"]] == list(range(len(frames[1]))), "positions")
        check(all(r["draw"] == r["name"].startswith("glDraw") for r in page["calls"]), "draw flags")
        check(all(r["error"] is None and r["thread_ns"] is not None for r in page["calls"]),
              "no errors; thread time")
        status, window = v.json("/api/calls?frame=1&from=10&count=5")
        check([r["call"] for r in window["calls"]] == frames[1][10:15], "a window of calls")

        # Filter: a regex over "name(args)", as Python's re finds it.
        status, filtered = v.json("/api/calls?frame=2&count=1000&filter=" + q("^glDraw(Arrays|Elements)\\("))
        want = [s for s in frames[2] if re.search(r"^glDraw(Arrays|Elements)\(", calls[s])]
        check(status == 200 and [r["call"] for r in filtered["calls"]] == want and
              filtered["total"] == len(want), "filtered calls")
        status, filtered = v.json("/api/calls?frame=2&from=3&count=2&filter=" + q("GL_TRIANGLES"))
        want = [s for s in frames[2] if "GL_TRIANGLES" in calls[s]]
        check([r["call"] for r in filtered["calls"]] == want[3:5], "a window of filtered calls")
        status, filtered = v.json("/api/calls?frame=2&thread=99")
        check(status == 200 and filtered["total"] == 0, "thread filter")

        # Find, forward and backward.
        draws = [s for s in sorted(calls) if calls[s].startswith("glDrawElements(")]
        status, found = v.json(f"/api/find?regex=glDrawElements&after={draws[0]}")
        check(found["call"] == draws[1], f"find next: {found} != {draws[1]}")
        status, found = v.json(f"/api/find?regex=glDrawElements&after={draws[2]}&backward=1")
        check(found["call"] == draws[1], "find previous")
        # The next and previous draw, by the role the page asks for (draw=1).
        all_draws = [s for s in sorted(calls) if re.match(r"glDraw(Arrays|Elements)\w*\(", calls[s])]
        status, found = v.json(f"/api/find?draw=1&after={all_draws[0]}")
        check(status == 200 and found["call"] == all_draws[1], f"next draw: {found}")
        status, found = v.json(f"/api/find?draw=1&after={all_draws[2]}&backward=1")
        check(status == 200 and found["call"] == all_draws[1], f"previous draw: {found}")
        status, found = v.json("/api/find?regex=" + q("^nothing matches this$") + "&after=0")
        check(status == 200 and found["call"] is None and found["frame"] is None, "find nothing")

        # A call's details.
        upload = next(s for s in sorted(calls) if calls[s].startswith("glTexImage2D(") and "<blob" in calls[s])
        status, detail = v.json(f"/api/call?call={upload}")
        check(status == 200 and detail["name"] == "glTexImage2D", "call details")
        names = [a["name"] for a in detail["args"]]
        check(names[:3] == ["target", "level", "internalformat"], f"argument names {names}")
        check(detail["args"][0]["value"] == "GL_TEXTURE_2D", "enums by name")
        pixels = detail["args"][-1]
        check(pixels["blob"] is not None and pixels["blob"]["size"] > 0, "blob reference")
        check(detail["texture"]["image"] == f"/api/call/image?call={upload}", "decodable upload")
        status, ctype, png = v.get(detail["texture"]["image"])
        check(status == 200 and ctype == "image/png", "upload as PNG")
        w, h, _ = read_png_bytes(png)
        check((w, h) == (detail["texture"]["width"], detail["texture"]["height"]), "upload size")
        status, ctype, blob = v.get(f"/api/blob?id={pixels['blob']['id']}")
        check(status == 200 and len(blob) == pixels["blob"]["size"], "blob bytes")
        status, ctype, part = v.get(f"/api/blob?id={pixels['blob']['id']}&offset=4&size=8")
        check(part == blob[4:12], "blob slice")
        source = next(s for s in sorted(calls) if calls[s].startswith("glShaderSource("))
        status, detail = v.json(f"/api/call?call={source}")
        check("main" in detail.get("shader_source", ""), "shader source")
        draw = frames[1][[calls[s].startswith("glDraw") for s in frames[1]].index(True)]
        status, detail = v.json(f"/api/call?call={draw}")
        check(detail["draw"] is not None and detail["draw"]["mode"] == "GL_TRIANGLES", "draw info")
        status, vertices = v.json(detail["draw"]["vertex_table"])
        check(status in (200, 503), "VBO draws: through the worker (or why not)")
        swap = frames[1][-1]
        status, detail = v.json(f"/api/call?call={swap}")
        check(detail["frame"] == 1 and detail["pos"] == len(frames[1]) - 1, "frame and position")

        # Frame summary: the per-function table adds up to the frame.
        status, summary = v.json("/api/frame/summary?frame=1")
        check(sum(f["count"] for f in summary["functions"]) == len(frames[1]), "summary counts")
        check(summary["image"] == "/api/image?frame=1", "summary image")
        counts = {}
        for s in frames[1]:
            name = calls[s].split("(")[0]
            counts[name] = counts.get(name, 0) + 1
        check({f["name"]: f["count"] for f in summary["functions"]} == counts, "per-function counts")

        # The captured image is the one `gltrace frames` writes.
        out = os.path.join(WORK, "frames")
        shutil.rmtree(out, ignore_errors=True)
        run([GLTRACE, "frames", "-o", out, "--frames", "1", trace])
        with open(os.path.join(out, "frame-000001.png"), "rb") as f:
            want = read_png_bytes(f.read())
        status, ctype, png = v.get("/api/image?frame=1")
        check(status == 200 and read_png_bytes(png) == want, "frame image as gltrace frames'")
        # A swap's image is read before the swap: after the call before it.
        before_swap = frames[1][-2]
        status, ctype, png = v.get(f"/api/image?call={before_swap}")
        check(status == 200 and read_png_bytes(png) == want, "image by call")
        status, detail = v.json(f"/api/call?call={before_swap}")
        check(detail["images"] == [f"/api/image?call={before_swap}"], "images after a call")
        status, detail = v.json(f"/api/call?call={swap}")
        check(detail["images"] == [], "no image after the swap itself")

        # Minimap and timeline.
        status, minimap = v.json("/api/minimap?frame=1&buckets=10")
        check(len(minimap["buckets"]) == 10 and minimap["calls"] == len(frames[1]), "minimap")
        check(max(minimap["buckets"]) == max(r["dur_ns"] for r in page["calls"]), "minimap max")
        f1 = listing["frames"][1]
        status, timeline = v.json(f"/api/timeline?start_ns={f1['start_ns']}&end_ns={f1['start_ns'] + f1['wall_ns']}&max=100000")
        spans = timeline["threads"][0]["spans"]
        check(status == 200 and set(frames[1]) <= {s["call"] for s in spans}, "timeline spans")
        status, merged = v.json(f"/api/timeline?start_ns=0&end_ns={info['duration_ns']}&max=10")
        check(sum(len(t["spans"]) for t in merged["threads"]) <= 12 and
              sum(s.get("calls", 1) for t in merged["threads"] for s in t["spans"]) == len(calls),
              "timeline merged")
        check(len(merged["frames"]) == len(frames), "timeline frames")

        # Export: the lines dump prints.
        status, ctype, text = v.get("/api/export?frame=1")
        _, _, dumped = dump_lines(trace, "--frames", "1")
        want = [line for line in dumped.splitlines() if re.match(r"^\d+ ", line)]
        check(text.decode().splitlines() == want, "export as dump's")
        status, ctype, text = v.get("/api/export?frame=1&from=2&count=3&filter=" + q("gl"))
        check(text.decode().splitlines() == [l for l in want if re.search("gl", l[l.index(' ') + 1:])][2:5],
              "export of a filtered window")

        bad_requests(v)
        draws_1 = [s for s in frames[1] if calls[s].startswith("glDraw")]
        program = int(re.search(r"program = (\d+)", [calls[s] for s in sorted(calls)
                                                        if s < draws_1[0] and calls[s].startswith("glUseProgram(")][-1]).group(1))
        state(v, expect_worker_error=False, draw=draws_1[0], program=program, next_draw=draws_1[1])
        vertex_tables(v, draws_1, calls)
        r = run([GLTRACE, "view", "--no-browser", "--port", str(v.port), trace], timeout=60)
        check(r.returncode == 1 and "cannot listen" in r.stderr, f"port in use: exit 1 ({r.stderr!r})")
    finally:
        check(v.close(), "the server is still running after every request")


def bad_requests(v):
    status, body = v.json("/api/trace", token=False)
    check(status == 403 and "token" in body["error"], "no token: 403")
    status, body = v.json("/api/trace?token=" + "0" * 32, token=False)
    check(status == 403, "wrong token: 403")
    status, body = v.json("/api/calls?frame=0&token=" + v.token[:-1], token=False)
    check(status == 403, "a token's prefix: 403")
    status, body = v.json("/api/trace", token=False, headers={"X-Gltrace-Token": v.token})
    check(status == 200, "token in the header")
    status, body = v.json("/api/calls?frame=0&filter=" + q("(unclosed"))
    check(status == 400 and "regular expression" in body["error"], f"bad regex: 400 {body}")
    status, body = v.json("/api/find?regex=" + q("a{2,1}"))
    check(status == 400, "bad find regex: 400")
    status, body = v.json("/api/calls?frame=0&filter=" + "a" * 5000)
    check(status == 400, "regex too long: 400")
    status, body = v.json("/api/calls?frame=0&filter=" + q("(a|b)\\1"))
    check(status == 400, "back-reference: 400")
    # Exponential for a backtracking matcher on every call's text; linear here.
    status, body = v.json("/api/calls?frame=0&filter=" + q("(.*.*)*(.*.*)*(.*.*)*QQQ"))
    check(status == 200 and body["total"] == 0, "catastrophic regex answered")
    status, body = v.json("/api/calls?frame=99999")
    check(status == 404 and "frame" in body["error"], "unknown frame: 404")
    status, body = v.json("/api/frame/summary?frame=99999")
    check(status == 404, "unknown frame summary: 404")
    status, body = v.json("/api/call?call=999999999")
    check(status == 404, "unknown call: 404")
    status, body = v.json("/api/blob?id=0123456789abcdef")
    check(status == 404, "unknown blob: 404")
    status, body = v.json("/api/image?frame=99999")
    check(status == 404, "unknown image: 404")
    status, body = v.json("/api/call/image?call=0")
    check(status == 404 and "texture" in body["error"], "no upload: 404")
    status, body = v.json("/api/calls?frame=abc")
    check(status == 400 and "frame" in body["error"], "not a number: 400")
    status, body = v.json("/api/calls")
    check(status == 400, "missing parameter: 400")
    status, body = v.json("/api/frames?count=99999999999")
    check(status == 200 and len(body["frames"]) == body["total"], "huge frame count clamped")
    status, body = v.json("/api/minimap?frame=0&buckets=99999999999")
    check(status == 200 and len(body["buckets"]) == body["calls"], "huge bucket count clamped")
    status, body = v.json("/api/timeline?start_ns=10&end_ns=5")
    check(status == 400, "empty time range: 400")
    status, body = v.json("/api/nothing")
    check(status == 404, "unknown endpoint: 404")
    # No file path from a request, however written.
    for path in ["/../etc/passwd", "/api/../etc/passwd", "/assets/../../etc/passwd",
                 "/%2e%2e/etc/passwd", "/assets/%2e%2e/%2e%2e/etc/passwd", "/etc/passwd",
                 "/api/../../../../etc/passwd?token=" + v.token, "/assets/"]:
        status, _, body = v.get(path, token=False)
        check(status in (403, 404) and b"root:" not in body, f"{path}: {status}")
    status, ctype, page = v.get("/", token=False)
    check(status == 200 and ctype.startswith("text/html"), "the page without a token")
    status, ctype, same = v.get("/index.html", token=False)
    check(same == page, "/index.html")
    # Loopback only: the listening socket is 127.0.0.1's, nothing else's.
    listening = []
    with open("/proc/net/tcp") as f:
        for line in f.readlines()[1:]:
            local, state = line.split()[1], line.split()[3]
            address, port = local.split(":")
            if int(port, 16) == v.port and state == "0A":
                listening.append(address)
    check(listening == ["0100007F"], f"listens on 127.0.0.1 only: {listening}")
    for address in non_loopback_addresses():
        try:
            socket.create_connection((address, v.port), timeout=5).close()
            check(False, f"connection to {address}:{v.port} refused")
        except OSError:
            pass


def demo_geometry():
    """The demo's cube (24 vertices: position, colour; 36 indices), ring (3
    vertices) and quad (4 vertices: position, uv), as demo/scene.cpp builds
    them, rounded to float32 as its buffers hold them."""
    f32 = lambda x: struct.unpack("f", struct.pack("f", x))[0]
    faces = [((1, 0, 0), (0, 1, 0), (0, 0, 1)), ((-1, 0, 0), (0, 0, 1), (0, 1, 0)),
             ((0, 1, 0), (0, 0, 1), (1, 0, 0)), ((0, -1, 0), (1, 0, 0), (0, 0, 1)),
             ((0, 0, 1), (1, 0, 0), (0, 1, 0)), ((0, 0, -1), (0, 1, 0), (1, 0, 0))]
    colors = [(0.9, 0.2, 0.2), (0.2, 0.9, 0.2), (0.2, 0.3, 0.9), (0.9, 0.9, 0.2),
              (0.9, 0.3, 0.9), (0.2, 0.9, 0.9)]
    cube, cube_idx = [], []
    for f, (n, u, w) in enumerate(faces):
        for corner in range(4):
            su, sw = (1 if corner & 1 else -1), (1 if corner & 2 else -1)
            cube.append(([n[k] + su * u[k] + sw * w[k] for k in range(3)], [f32(c) for c in colors[f]]))
        cube_idx += [f * 4 + k for k in (0, 1, 2, 2, 1, 3)]
    ring = [([0, f32(0.12), 0], [1, 1, 1]), ([f32(-0.1), f32(-0.06), 0], [1, f32(0.5), 0]),
            ([f32(0.1), f32(-0.06), 0], [0, f32(0.5), 1])]
    quad = [([-1, -1], [0, 0]), ([1, -1], [1, 0]), ([-1, 1], [0, 1]), ([1, 1], [1, 1])]
    return cube, cube_idx, ring, quad


def vertex_tables(v, draws, calls):
    """A draw's vertex table from buffer objects is decoded by the state
    worker, row for row what the demo put in its buffers: the indexed cube and
    quad (indices read from the element buffer), the instanced ring and the
    quad strip (vertices from the draw's first and count), pages of them, and
    the program's attribute names."""
    cube, cube_idx, ring, quad = demo_geometry()
    expected = {"count = 36, type = GL_UNSIGNED_SHORT, indices = NULL": [cube[i] for i in cube_idx],
                "count = 6, type = GL_UNSIGNED_SHORT, indices = NULL": [quad[i] for i in (0, 1, 2, 2, 1, 3)],
                "first = 0, count = 3, instancecount = 8": ring,
                "GL_TRIANGLE_STRIP, first = 0, count = 4": quad}
    seen = set()
    for draw in draws:
        want = next((rows for key, rows in expected.items() if key in calls[draw]), None)
        if want is None or calls[draw].split("(")[0] + str(len(want)) in seen:
            continue
        seen.add(calls[draw].split("(")[0] + str(len(want)))
        status, detail = v.json(f"/api/call?call={draw}")
        status, table = v.json(detail["draw"]["vertex_table"] + "&count=1000")
        check(status == 200 and table.get("source") == "worker" and table["total"] == len(want),
              f"{calls[draw]}: a table from the worker: {status} {table}")
        check([a["name"] for a in table["attributes"]] in (["a_pos", "a_color"], ["a_pos", "a_uv"]),
              f"{calls[draw]}: the program's attribute names: {table['attributes']}")
        check(table["rows"] == [list(map(list, row)) for row in want],
              f"{calls[draw]}: rows as the demo wrote them: {table['rows'][:4]}... != {want[:4]}...")
        status, page = v.json(detail["draw"]["vertex_table"] + f"&first={len(want) - 2}&count=5")
        check(status == 200 and page["rows"] == table["rows"][-2:], f"{calls[draw]}: the last page")
    check(len(seen) == 4, f"two indexed, an instanced and a strip draw checked: {seen}")


def non_loopback_addresses():
    r = subprocess.run(["hostname", "-I"], capture_output=True, text=True, check=False)
    return [a for a in r.stdout.split() if ":" not in a and not a.startswith("127.")]


def state(v, expect_worker_error, draw=20, program=None, next_draw=None):
    """The state endpoints go through the worker: the state at a draw (its
    program the one dump says it used), or a 503 that says why."""
    status, body = v.json(f"/api/state?call={draw}")
    if status == 503 or expect_worker_error:
        check(status == 503 and "state worker" in body["error"], f"worker unavailable: 503 {body}")
        status, body = v.json(f"/api/state?call={draw}")
        check(status == 503, "still 503, after a restart")
        for path in [f"/api/state/framebuffer?call={draw}", f"/api/state/shader?call={draw}&name=1",
                     f"/api/state/buffer?call={draw}&name=1",
                     f"/api/state/texture?call={draw}&name=1&target=GL_TEXTURE_2D"]:
            status, _, _ = v.get(path)
            check(status == 503, f"{path}: 503")
        return
    print("state worker present: checking its answers", flush=True)
    check(status == 200 and body["call"] == draw, f"state: {status} {body.get('error')}")
    check(body["state"]["bindings"]["current_program"] == {"name": program},
          f"current program {program}: {body['state']['bindings'].get('current_program')}")
    status, after = v.json(f"/api/state?call={next_draw}")
    check(status == 200 and after["restarted"] is False, "stepping forward does not restart")
    status, ctype, png = v.get(f"/api/state/framebuffer?call={next_draw}")
    check(status == 200 and ctype == "image/png" and read_png_bytes(png)[0] > 0, "framebuffer read back")
    status, detail = v.json(f"/api/call?call={next_draw}")
    status, table = v.json(detail["draw"]["vertex_table"] + "&count=5")
    check(status == 200 and table["total"] == detail["draw"]["count"] and len(table["rows"]) == 5 and
          all(len(row) == len(table["attributes"]) > 0 for row in table["rows"]),
          f"a buffer-object draw's vertices through the worker: {status} {table}")
    status, shader = v.json(f"/api/state/shader?call={next_draw}&name={program}")
    check(status == 200 and shader.get("program") is True, f"program info {shader}")
    status, body = v.json("/api/state?call=999999999")
    check(status == 404, "state past the end: 404")
    # A worker that died between requests (a driver crash) is replaced on the
    # next request. (One that dies during a request gets that request a 503.)
    for worker in children(v.proc.pid):
        # Reapable once every thread is gone (the leader shows Z before);
        # gone when the viewer reaped it already (a checkpoint's job).
        try:
            os.kill(worker, 9)
            while (open(f"/proc/{worker}/stat").read().split(") ")[1][0] != "Z" or
                   len(os.listdir(f"/proc/{worker}/task")) > 1):
                pass
        except (FileNotFoundError, ProcessLookupError):
            pass
    status, body = v.json(f"/api/state?call={draw}")
    check(status == 200 and body["state"]["bindings"]["current_program"] == {"name": program},
          f"a new worker after a crash: {status} {body.get('error')}")


def wait_no_job(v):
    """Until no state worker is being moved to a checkpoint."""
    while True:
        status, body = v.json("/api/state/workers")
        if status != 200 or all(w["job"] is None for w in body["workers"]):
            return body


def test_state_pool(trace):
    """Workers parked at frame starts (--state-workers, default 3): a backward
    move in a frame replays from its first call; with one worker, from the
    trace's start, as before the pool."""
    _, frames, _ = dump_lines(trace)
    first, call = frames[2][0], frames[2][len(frames[2]) // 2]
    v = Viewer(trace)
    try:
        status, body = v.json(f"/api/state?call={call}")
        check(status == 200 and body["from"] is None and body["replayed"] == call - frames[0][0] + 1,
              f"the first state request replays from the start: {status} {body.get('error')}")
        workers = wait_no_job(v)["workers"]
        check(len(workers) == 3 and
              sorted((w["position"], w["checkpoint"]) for w in workers) ==
              [(frames[1][0], True), (first, True), (call, False)] and all(w["pid"] for w in workers),
              f"one worker at the call, two parked at its frame's start {first} and the previous "
              f"frame's {frames[1][0]}: {workers}")
        status, back = v.json(f"/api/state?call={call - 1}")
        check(status == 200 and back["from"] == first and back["checkpoint"] is True and
              back["replayed"] == call - 1 - first and back["restarted"] is False and
              back["worker"] != body["worker"],
              f"one call back: from the frame's start {first}: {status} "
              f"{ {k: back.get(k) for k in ('worker', 'from', 'replayed', 'checkpoint', 'error')} }")
    finally:
        check(v.close(), "the server is still running (pool of 3)")
    v = Viewer(trace, "--state-workers", "1")
    try:
        v.json(f"/api/state?call={call}")
        status, back = v.json(f"/api/state?call={call - 1}")
        check(status == 200 and back["restarted"] is True and back["from"] is None and back["worker"] == 0,
              f"--state-workers 1: one call back restarts from the trace's start: {status} {back.get('from')}")
        status, body = v.json("/api/state/workers")
        check(status == 200 and len(body["workers"]) == 1 and body["workers"][0]["position"] == call - 1,
              f"--state-workers 1: one worker, at the call: {body}")
    finally:
        check(v.close(), "the server is still running (pool of 1)")
    for bad in ("0", "17", "x"):
        r = run([GLTRACE, "view", "--no-browser", "--state-workers", bad, trace], timeout=60)
        check(r.returncode != 0 and "--state-workers" in r.stderr,
              f"--state-workers {bad}: refused ({r.returncode}, {r.stderr!r})")


def children(pid):
    found = []
    for tid in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{tid}/children") as f:
            found += [int(c) for c in f.read().split()]
    return found


def test_app(trace):
    calls, frames, _ = dump_lines(trace)
    v = Viewer(trace)
    try:
        # Debug groups: depth and labels (KHR and EXT markers).
        status, page = v.json("/api/calls?frame=0&count=1000")
        rows = page["calls"]
        got = [(r["name"], r["depth"], r["group"]) for r in rows
               if r["name"].startswith(("glPush", "glPop", "glDraw", "glFlush"))]
        want = [("glPushDebugGroup", 0, "outer"), ("glPushDebugGroup", 1, "inner"),
                ("glDrawArrays", 2, None), ("glPopDebugGroup", 1, None),
                ("glPushGroupMarkerEXT", 1, "marker"), ("glFlush", 2, None),
                ("glPopGroupMarkerEXT", 1, None), ("glPopDebugGroup", 0, None)]
        check(got == want, f"debug groups {got}")
        # Past the many calls of frame 1 (in a group of their own, over many
        # chunks), frame 2 nests as frame 0 did.
        status, page2 = v.json("/api/calls?frame=2&count=1000")
        got = [(r["name"], r["depth"], r["group"]) for r in page2["calls"]
               if r["name"].startswith(("glPush", "glPop", "glDraw", "glFlush"))]
        check(got == want, f"frame 2's debug groups {got}")

        # Every upload the viewer decodes, pixel for pixel (rows bottom first).
        uploads = [r for r in rows if r["name"] == "glTexImage2D"]
        expected = [
            [[255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255, 255, 255, 255, 128],
             [10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120, 130, 140, 150, 160]],
            [[255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255], [1, 2, 3, 255, 4, 5, 6, 255, 7, 8, 9, 255]],
            [[255, 0, 0, 255, 0, 255, 0, 255], [0, 0, 255, 255, 255, 255, 255, 255]],
            [[255, 0, 0, 255, 0, 255, 255, 0]],
            [[255, 0, 0, 255, 0, 255, 0, 0]],
            [[0, 0, 0, 255, 100, 100, 100, 255, 200, 200, 200, 255, 255, 255, 255, 255]],
            [[0, 0, 0, 10, 0, 0, 0, 20, 0, 0, 0, 30, 0, 0, 0, 40]],
            [[50, 50, 50, 60, 70, 70, 70, 80]],
            [[1, 0, 0, 255, 2, 0, 0, 255, 3, 0, 0, 255]],
            [[10, 20, 0, 255, 30, 40, 0, 255, 50, 60, 0, 255]],
            [[255, 128, 0, 255, 64, 255, 0, 0]],
            [[255, 128, 0, 255]],
        ]
        check(len(uploads) == len(expected), f"{len(uploads)} uploads")
        for row, want_rows in zip(uploads, expected):
            status, detail = v.json(f"/api/call?call={row['call']}")
            status, ctype, png = v.get(detail["texture"]["image"] or "/none")
            if status != 200:
                check(False, f"upload {row['call']} ({detail['texture']}): {png}")
                continue
            w, h, got_rows = read_png_bytes(png)
            got_rows = [list(r) for r in reversed(got_rows)]  # PNG top first; GL rows bottom first
            check(got_rows == want_rows, f"upload {row['args']}: {got_rows} != {want_rows}")

        # A draw from client arrays: its vertex table.
        draw = next(r for r in rows if r["name"] == "glDrawArrays")
        status, detail = v.json(f"/api/call?call={draw['call']}")
        status, table = v.json(detail["draw"]["vertex_table"])
        check(status == 200 and table["total"] == 3, f"vertex table {table}")
        check([a["type"] for a in table["attributes"]] == ["GL_FLOAT", "GL_UNSIGNED_BYTE"], "attribute types")
        check(table["rows"][2] == [[0, 1], [0, 0, 1, 1]], f"vertex 2: {table['rows'][2:]}")
        status, part = v.json(detail["draw"]["vertex_table"] + "&first=1&count=1")
        check(part["rows"] == table["rows"][1:2], "vertex window")

        # The long frame's windows far from its start.
        status, info = v.json("/api/frames?from=1&count=1")
        n = info["frames"][0]["calls"]
        status, page = v.json(f"/api/calls?frame=1&from={n - 5}&count=10")
        check(len(page["calls"]) == 5 and page["calls"][-1]["name"] == "eglSwapBuffers", "end of a long frame")
        check([r["depth"] for r in page["calls"]] == [1, 1, 1, 0, 0], f"depths deep in a long frame {page['calls']}")
        status, page = v.json(f"/api/calls?frame=1&from={n // 2}&count=1")
        check(page["calls"][0]["depth"] == 1 and page["calls"][0]["pos"] == n // 2, "depth mid-frame")
        status, filtered = v.json("/api/calls?frame=1&count=10&filter=" + q("^gl(Push|Pop)DebugGroup"))
        check([r["depth"] for r in filtered["calls"]] == [0, 1, 1, 0, 0, 0], f"filtered depths {filtered}")
    finally:
        check(v.close(), "the server is still running")


def test_damaged(trace):
    with open(trace, "rb") as f:
        data = f.read()
    cut = os.path.join(WORK, "cut.gltrace")
    with open(cut, "wb") as f:
        f.write(data[:len(data) * 2 // 3])
    flipped = os.path.join(WORK, "flipped.gltrace")
    with open(flipped, "wb") as f:
        f.write(data[:len(data) // 2] + bytes([data[len(data) // 2] ^ 0x40]) + data[len(data) // 2 + 1:])
    for path, what in [(cut, "cut short"), (flipped, "bit-flipped")]:
        v = Viewer(path)
        try:
            status, info = v.json("/api/trace")
            check(status == 200 and info["warnings"], f"{what}: a warning ({info['warnings']})")
            status, listing = v.json("/api/frames?count=1000")
            for f in listing["frames"]:
                status, page = v.json(f"/api/calls?frame={f['number']}&count=10000")
                check(status == 200 and len(page["calls"]) == f["calls"], f"{what}: frame {f['number']} served")
                status, _, _ = v.get(f"/api/frame/summary?frame={f['number']}")
                check(status == 200, f"{what}: summary")
            status, found = v.json("/api/find?regex=eglSwapBuffers")
            check(status == 200, f"{what}: find")
        finally:
            check(v.close(), f"{what}: the server is still running")
    garbage = os.path.join(WORK, "garbage.gltrace")
    with open(garbage, "wb") as f:
        f.write(b"not a trace at all" * 100)
    r = run([GLTRACE, "view", "--no-browser", garbage], timeout=60)
    check(r.returncode == 1 and "not a gltrace file" in r.stderr and "http" not in r.stdout,
          f"no trace: exit 1 with why ({r.returncode}, {r.stderr!r})")
    r = run([GLTRACE, "view", "--no-browser", os.path.join(WORK, "missing.gltrace")], timeout=60)
    check(r.returncode == 1 and "cannot open" in r.stderr, "missing trace: exit 1")
    r = run([GLTRACE, "view", "--port", "http", garbage], timeout=60)
    check(r.returncode == 2 and "--port" in r.stderr, "bad --port: usage error")


def test_snapshot(trace):
    """A trimmed trace starts with a state snapshot: /api/trace counts its
    calls, they are the first of frame 0 and marked, the call after is not;
    a full trace has none."""
    v = Viewer(trace)
    try:
        status, info = v.json("/api/trace")
        check(info["snapshot_calls"] == 0 and info["snapshot_inexact"] == 0,
              f"a full trace has no snapshot ({info['snapshot_calls']})")
        status, page = v.json("/api/calls?frame=0&count=50")
        check(not any("snapshot" in c for c in page["calls"]), "a full trace's calls are not marked")
    finally:
        v.close()
    cut = os.path.join(WORK, "trimmed.gltrace")
    r = run([GLTRACE, "trim", "--frames", "3-5", "-o", cut, trace], timeout=300)
    if r.returncode != 0:
        check(False, f"gltrace trim failed: {r.stderr}")
        return
    # dump marks the snapshot's calls ("// snapshot: ..."): the leading run of them
    dumped = [line for line in run([GLTRACE, "dump", cut]).stdout.splitlines() if re.match(r"^\d+ ", line)]
    leading = next((i for i, line in enumerate(dumped) if "// snapshot" not in line), len(dumped))
    v = Viewer(cut)
    try:
        status, info = v.json("/api/trace")
        n = info["snapshot_calls"]
        check(status == 200 and n > 0, f"a trimmed trace has snapshot_calls ({n})")
        check(n == leading, f"snapshot_calls {n} == the calls dump marks snapshot first ({leading})")
        status, frame0 = v.json("/api/frames?from=0&count=1")
        check(frame0["frames"][0]["calls"] > n, "frame 0 holds the snapshot and the cut's first calls")
        status, page = v.json(f"/api/calls?frame=0&from=0&count={n + 1}")
        rows = page["calls"]
        check(len(rows) == n + 1 and all(c.get("snapshot") is True for c in rows[:n]),
              "the first snapshot_calls calls are marked snapshot")
        check(len(rows) == n + 1 and "snapshot" not in rows[n], "the call after the snapshot is not")
        status, first = v.json(f"/api/call?call={rows[0]['call']}")
        check(status == 200 and first.get("snapshot") is True, "/api/call says snapshot")
        status, after = v.json(f"/api/call?call={rows[n]['call']}")
        check(status == 200 and "snapshot" not in after and "snapshot_inexact" not in after,
              "/api/call of the call after the snapshot says none")
        # the not-exact notes: as many as the trace's calls carry
        notes = 0
        status, whole = v.json(f"/api/calls?frame=0&from=0&count={n}")
        for c in whole["calls"]:
            status, detail = v.json(f"/api/call?call={c['call']}")
            inexact = detail.get("snapshot_inexact", [])
            check(isinstance(inexact, list) and all(isinstance(t, str) and t for t in inexact),
                  "snapshot_inexact is a list of notes")
            check(c.get("snapshot_inexact", 0) == len(inexact), "a row counts its call's notes")
            notes += len(inexact)
        check(notes == info["snapshot_inexact"], f"{notes} notes == snapshot_inexact {info['snapshot_inexact']}")
    finally:
        check(v.close(), "trimmed trace: the server is still running")


def post_json(v, path):
    """POST PATH (no body) with the token: (status, JSON)."""
    conn = http.client.HTTPConnection("127.0.0.1", v.port, timeout=300)
    conn.request("POST", path + ("&" if "?" in path else "?") + "token=" + v.token, body=b"",
                 headers={"Content-Length": "0"})
    resp = conn.getresponse()
    body = resp.read()
    conn.close()
    return resp.status, json.loads(body)


def wait_measure(v, seconds=300):
    """Polls /api/gpu/measure until the replay's measure ends: its last state."""
    import time
    deadline = time.time() + seconds
    while time.time() < deadline:
        status, m = v.json("/api/gpu/measure")
        if status != 200 or m["state"] != "running":
            return m
        time.sleep(0.2)
    return {"state": "timeout"}


def heavy_draws(v, frame):
    """The glDrawArrays calls of a frame, and its heavy one (the 4th)."""
    status, page = v.json(f"/api/calls?frame={frame}&count=1000")
    draws = sorted(r["call"] for r in page["calls"] if r["name"] == "glDrawArrays")
    return draws, (draws[3] if len(draws) > 3 else None)


def test_gpu_capture(trace, frames):
    """A trace recorded with --gpu-time (gltrace-heavy-draw): every call's GPU
    time as dump prints it, frames carry their calls' sum, the most expensive
    GPU work sorted with the heavy draws on top, the timeline's GPU lane."""
    _, _, dumped = dump_lines(trace)
    dump_gpu = {int(m.group(1)): float(m.group(2))
                for m in re.finditer(r"^// gpu time of call (\d+): ([0-9.]+) ms", dumped, re.M)}
    v = Viewer(trace)
    try:
        status, info = v.json("/api/trace")
        check(info["has_gpu_time"] and info["gpu_source"] == "capture",
              f"a --gpu-time trace has capture GPU times ({info['has_gpu_time']}, {info['gpu_source']})")
        check(info["gpu_calls"] == len(dump_gpu) == frames * 7 and info["gpu_work_calls"] == frames * 7,
              f"every clear and draw has a GPU time ({info['gpu_calls']} of {info['gpu_work_calls']}, dump {len(dump_gpu)})")
        check(abs(info["gpu_ns"] / 1e6 - sum(dump_gpu.values())) < 0.001 * len(dump_gpu) + 1e-6,
              "the trace's GPU time sums its calls'")
        check(info["gpu_measure"]["state"] == "idle", "no measure ran")
        status, listing = v.json("/api/frames?count=100")
        seen = {}
        for f in listing["frames"]:
            status, page = v.json(f"/api/calls?frame={f['number']}&count=1000")
            times = {r["call"]: r["gpu_ns"] for r in page["calls"] if r["gpu_ns"] is not None}
            seen.update(times)
            check(f["gpu_ns"] == sum(times.values()) and f["gpu_calls"] == len(times) == 7,
                  f"frame {f['number']}'s GPU time sums its calls' ({f['gpu_ns']}, {f['gpu_calls']} calls)")
            status, summary = v.json(f"/api/frame/summary?frame={f['number']}")
            check(summary["gpu_ns"] == f["gpu_ns"], f"frame {f['number']}'s summary says its GPU time")
            names = {r["call"]: r["name"] for r in page["calls"]}
            check(all(names[c] in ("glClear", "glDrawArrays") for c in times), "only clears and draws have GPU times")
        check(set(seen) == set(dump_gpu) and all(abs(seen[c] / 1e6 - ms) < 0.0011 for c, ms in dump_gpu.items()),
              "each call's GPU time is the one dump prints")
        # per frame: sorted by GPU time, the heavy draw on top in most frames
        on_top, heavy_ms, other_ms = 0, [], []
        heavy_set = set()
        for frame in range(frames):
            draws, heavy = heavy_draws(v, frame)
            heavy_set.add(heavy)
            status, top = v.json(f"/api/gpu/top?frame={frame}")
            rows = top["rows"]
            check(status == 200 and top["frame"] == frame and top["total"] == 7 and len(rows) == 7 and
                  top["source"] == "capture", f"frame {frame}: its 7 GPU-work calls")
            check([r["gpu_ns"] for r in rows] == sorted((r["gpu_ns"] for r in rows), reverse=True),
                  f"frame {frame}: sorted by GPU time, biggest first")
            check(all(r["frame"] == frame and r["gpu_ns"] == seen[r["call"]] for r in rows),
                  f"frame {frame}: the rows' frames and times")
            check(abs(sum(r["share"] for r in rows) - 1) < 1e-6, f"frame {frame}: shares add up to 1")
            if frame == 0:
                continue  # shaders compile in the first
            on_top += rows[0]["call"] == heavy
            for r in rows:
                if r["name"] == "glDrawArrays":
                    (heavy_ms if r["call"] == heavy else other_ms).append(r["gpu_ns"])
        median = lambda xs: sorted(xs)[len(xs) // 2]  # noqa: E731
        check(on_top >= (frames - 1) // 2, f"the heavy draw tops most frames' GPU work ({on_top} of {frames - 1})")
        check(median(heavy_ms) > 3 * median(other_ms),
              f"the heavy draws' median GPU time is well above the others' ({median(heavy_ms)} vs {median(other_ms)})")
        # the whole trace: sorted, paged; its most expensive draws are the heavy ones
        status, whole = v.json("/api/gpu/top?count=1000")
        rows = whole["rows"]
        check(status == 200 and whole["frame"] is None and whole["total"] == frames * 7 and len(rows) == frames * 7,
              "the whole trace's GPU work")
        check([r["gpu_ns"] for r in rows] == sorted((r["gpu_ns"] for r in rows), reverse=True),
              "the whole trace's GPU work is sorted by GPU time")
        top_draws = [r["call"] for r in rows if r["name"] == "glDrawArrays"][:frames - 1]
        heavy_count = sum(1 for c in top_draws if c in heavy_set)
        check(heavy_count > (frames - 1) // 2,
              f"the heavy draws top the trace's most expensive draws ({heavy_count} of {len(top_draws)})")
        status, page = v.json("/api/gpu/top?from=5&count=4")
        check([r["call"] for r in page["rows"]] == [r["call"] for r in rows[5:9]], "paging (from, count)")
        status, cpu = v.json("/api/gpu/top?sort=cpu&count=1000")
        check(cpu["order"] == "desc" and [r["dur_ns"] for r in cpu["rows"]] == sorted((r["dur_ns"] for r in rows), reverse=True),
              "sort=cpu: by the calls' CPU time")
        status, by_call = v.json("/api/gpu/top?sort=call&count=1000")
        check(by_call["order"] == "asc" and [r["call"] for r in by_call["rows"]] == sorted(seen), "sort=call: in call order")
        status, by_fn = v.json("/api/gpu/top?sort=function&order=desc&count=1000")
        check([r["name"] for r in by_fn["rows"]] == sorted((r["name"] for r in rows), reverse=True),
              "sort=function&order=desc")
        status, by_frame = v.json("/api/gpu/top?sort=frame&count=1000")
        check([r["frame"] for r in by_frame["rows"]] == sorted(r["frame"] for r in rows), "sort=frame")
        status, body = v.json("/api/gpu/top?sort=bogus")
        check(status == 400 and "sort" in body["error"], f"a bad sort is a 400 ({status})")
        status, body = v.json("/api/gpu/top?order=up")
        check(status == 400, f"a bad order is a 400 ({status})")
        status, body = v.json("/api/gpu/top?frame=999")
        check(status == 404, f"an unknown frame is a 404 ({status})")
        status, call = v.json(f"/api/call?call={rows[0]['call']}")
        check(call["gpu_ns"] == rows[0]["gpu_ns"], "/api/call says the call's GPU time")
        status, call = v.json("/api/call?call=0")
        check(status == 200 and call["gpu_ns"] is None, "a call that is no GPU work has none")
        # the timeline's GPU lane: every span, on the trace's clock
        status, tl = v.json(f"/api/timeline?start_ns=0&end_ns={info['duration_ns'] * 2}&max=100000")
        gpu = tl["gpu"]
        check(gpu is not None and gpu["source"] == "capture" and len(gpu["spans"]) == frames * 7 and
              gpu["placed"] in ("gpu clock", "call start"),
              f"the timeline has a GPU lane of every GPU time ({gpu and len(gpu['spans'])}, {gpu and gpu['placed']})")
        if gpu:
            check(all(s["dur_ns"] == seen[s["call"]] for s in gpu["spans"]), "the GPU spans' lengths are the GPU times")
        frame2 = listing["frames"][2]
        status, tl = v.json(f"/api/timeline?start_ns={frame2['start_ns']}&end_ns={frame2['start_ns'] + frame2['wall_ns']}&max=10")
        check(tl["gpu"] is not None and 0 < len(tl["gpu"]["spans"]) <= 10, "a frame's window: its GPU spans, merged past max")
        status, body = post_json(v, "/api/gpu/measure")
        check(status == 409 and "capture" in body["error"], f"a capture's GPU times are not measured again ({status})")
    finally:
        check(v.close(), "GPU trace: the server is still running")


def test_gpu_none(trace):
    """A trace without GPU times: nulls everywhere, an empty top list."""
    v = Viewer(trace)
    try:
        status, info = v.json("/api/trace")
        check(not info["has_gpu_time"] and info["gpu_source"] is None and info["gpu_ns"] is None and
              info["gpu_calls"] == 0 and info["gpu_work_calls"] > 0, f"no GPU time: nulls ({info['gpu_work_calls']} GPU-work calls)")
        status, listing = v.json("/api/frames?count=3")
        check(all(f["gpu_ns"] is None and f["gpu_calls"] == 0 for f in listing["frames"]), "frames: gpu_ns null")
        status, page = v.json("/api/calls?frame=1&count=1000")
        check(all(r["gpu_ns"] is None for r in page["calls"]), "calls: gpu_ns null")
        status, top = v.json("/api/gpu/top")
        check(status == 200 and top["total"] == 0 and top["rows"] == [] and top["gpu_ns"] is None and
              top["source"] is None, "gpu/top: nothing")
        status, tl = v.json("/api/timeline?start_ns=0&end_ns=100000000000")
        check(tl["gpu"] is None, "timeline: no GPU lane")
        status, summary = v.json("/api/frame/summary?frame=1")
        check(summary["gpu_ns"] is None, "frame summary: gpu_ns null")
    finally:
        check(v.close(), "no-GPU trace: the server is still running")


def test_gpu_measure(trace, frames):
    """A trace without GPU times measured by a replay: the per-call times are
    merged, marked "replay", frames sum them, the heavy draws come first."""
    v = Viewer(trace)
    try:
        status, m = v.json("/api/gpu/measure")
        check(status == 200 and m["state"] == "idle", "no measure before it is asked")
        status, m = post_json(v, "/api/gpu/measure")
        check(status == 200 and m["state"] in ("running", "done"), f"the measure starts ({status} {m})")
        status, again = post_json(v, "/api/gpu/measure")
        check(status == 409 or again.get("state") == "running", f"one measure at a time ({status})")
        m = wait_measure(v)
        check(m["state"] == "done" and m["matched"] == frames * 7 and m["elapsed_ms"] >= 0,
              f"the replay's measure ends and gives every clear and draw a time ({m})")
        status, info = v.json("/api/trace")
        check(info["has_gpu_time"] and info["gpu_source"] == "replay" and info["gpu_calls"] == frames * 7,
              f"the trace's GPU times are the replay's ({info['gpu_source']}, {info['gpu_calls']})")
        status, listing = v.json("/api/frames?count=100")
        for f in listing["frames"]:
            status, page = v.json(f"/api/calls?frame={f['number']}&count=1000")
            times = [r["gpu_ns"] for r in page["calls"] if r["gpu_ns"] is not None]
            check(f["gpu_calls"] == len(times) == 7 and f["gpu_ns"] == sum(times),
                  f"frame {f['number']}: the replay's GPU times, summed")
        status, whole = v.json("/api/gpu/top?count=1000")
        check(whole["source"] == "replay" and whole["total"] == frames * 7, "gpu/top: the replay's times")
        heavy_set = {heavy_draws(v, f)[1] for f in range(frames)}
        top_draws = [r["call"] for r in whole["rows"] if r["name"] == "glDrawArrays"][:frames - 1]
        heavy_count = sum(1 for c in top_draws if c in heavy_set)
        check(heavy_count > (frames - 1) // 2, f"measured: the heavy draws come first ({heavy_count} of {len(top_draws)})")
        status, tl = v.json("/api/timeline?start_ns=0&end_ns=100000000000&max=100000")
        check(tl["gpu"] is not None and tl["gpu"]["placed"] == "call start" and len(tl["gpu"]["spans"]) == frames * 7,
              "the replay's GPU spans are laid at their calls' starts")
    finally:
        check(v.close(), "measured trace: the server is still running")


def test_browser(trace):
    """A browser is opened (xdg-open URL) when there is a display, unless --no-browser."""
    fake = os.path.join(WORK, "fakebin")
    os.makedirs(fake, exist_ok=True)
    opened = os.path.join(WORK, "opened")
    with open(os.path.join(fake, "xdg-open"), "w") as f:
        f.write(f"#!/bin/sh\necho \"$@\" > {opened}.tmp && mv {opened}.tmp {opened}\n")
    os.chmod(os.path.join(fake, "xdg-open"), 0o755)
    env = dict(ENV, PATH=fake + ":" + ENV["PATH"], DISPLAY=":999")
    for options, want in [([], True), (["--no-browser"], False)]:
        if os.path.exists(opened):
            os.remove(opened)
        proc = subprocess.Popen([GLTRACE, "view", "--port", "0", *options, trace], env=env,
                                stdout=subprocess.PIPE, text=True)
        url = proc.stdout.readline().strip().split(" ", 2)[2]
        # The page answers once the browser would be started: ask it, then look.
        port = int(re.search(r":(\d+)/", url).group(1))
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        conn.request("GET", "/")
        conn.getresponse().read()
        conn.close()
        if want:
            while not os.path.exists(opened):
                pass
            with open(opened) as f:
                check(f.read().strip() == url, "xdg-open gets the URL")
        else:
            check(not os.path.exists(opened), "--no-browser opens none")
        proc.terminate()
        check(proc.wait(timeout=30) == 0, "SIGTERM ends the viewer with status 0")


def main():
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    demo = record("demo", [os.path.join(BUILD, "bin", "gltrace-demo"), "--frames", "4", "--size", "64x48"],
                  ["--framebuffer", "swap", "--thread-time"])
    app = record("app", [os.path.join(BUILD, "bin", "gltrace-view-app"), "--frames", "3", "--calls", "300000"],
                 ["--framebuffer", "swap"])
    test_demo(demo)
    test_state_pool(demo)
    test_app(app)
    test_damaged(demo)
    demo7 = record("demo7", [os.path.join(BUILD, "bin", "gltrace-demo"), "--frames", "7", "--size", "64x48"])
    test_snapshot(demo7)
    test_browser(demo)
    heavy = os.path.join(BUILD, "bin", "gltrace-heavy-draw")
    gpu_trace = record("heavy-gpu", [heavy, "--frames", "8"], ["--gpu-time"])
    test_gpu_capture(gpu_trace, 8)
    test_gpu_none(demo)
    test_gpu_measure(record("heavy", [heavy, "--frames", "6"]), 6)
    # A driver the worker cannot load (a directory without one): the state
    # endpoints say so.
    empty = os.path.join(WORK, "no-driver-here")
    os.makedirs(empty, exist_ok=True)
    v = Viewer(demo, "--driver", empty)
    try:
        state(v, expect_worker_error=True)
        # and the GPU measure's replay fails, saying why
        status, m = post_json(v, "/api/gpu/measure")
        m = wait_measure(v)
        check(m["state"] == "failed" and "replay" in m["message"], f"a measure that cannot replay fails with why ({m})")
        status, info = v.json("/api/trace")
        check(not info["has_gpu_time"] and info["gpu_measure"]["state"] == "failed", "a failed measure leaves no GPU time")
    finally:
        check(v.close(), "the server survives its worker")
    if failures:
        print(f"{len(failures)} checks failed")
        sys.exit(1)
    print("all checks passed")


if __name__ == "__main__":
    main()
