#!/usr/bin/env python3
"""surfacereplayer and the `gltrace surface` tools, end to end, on Mesa's
llvmpipe (headless EGL): traces made by the creator from JSON descriptions,
replayed, and the composited PNGs read back and checked pixel by pixel.

  surface_test.py BUILD_DIR [unittest arguments, e.g. SurfaceTest.test_compose]

Every child process runs under a timeout, so a deadlock fails a test instead
of hanging it.
"""

import colorsys
import json
import os
import pty
import re
import select
import signal
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from png_rgba import read_png  # noqa: E402

BUILD = None
SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HERE = os.path.dirname(os.path.abspath(__file__))
TIMEOUT = 120


def binary(name):
    return os.path.join(BUILD, "bin", name)


def run(args, timeout=TIMEOUT, check=None, **kwargs):
    try:
        result = subprocess.run(args, capture_output=True, text=True, timeout=timeout, **kwargs)
    except subprocess.TimeoutExpired:
        raise AssertionError(f"{args} did not end within {timeout} s (deadlock?)")
    if check is not None and result.returncode != check:
        raise AssertionError(f"{args} exited {result.returncode}, not {check}:\n"
                             f"stdout: {result.stdout}\nstderr: {result.stderr}")
    return result


def pixel(image, x, y):
    _, _, rows = image
    return tuple(rows[y][x * 4:x * 4 + 3])


def colour(surface_id, update):
    """surfacereplayer's colour of a surface at its update-th buffer (docs/surface.md)."""
    hue = (surface_id * 137) % 360
    value = 1.0 - (update % 4) / 8.0
    r, g, b = colorsys.hsv_to_rgb(hue / 360.0, 1.0, value)
    return tuple(int(round(c * 255)) for c in (r, g, b))


def mix(top, bottom, alpha):
    return tuple(t * alpha + b * (1 - alpha) for t, b in zip(top, bottom))


BLACK = (0, 0, 0)


class Workdir:
    def __init__(self, test):
        self.dir = tempfile.mkdtemp(prefix="surface_test.")
        test.addCleanup(lambda: subprocess.run(["rm", "-rf", self.dir]))

    def path(self, name):
        return os.path.join(self.dir, name)

    def create(self, description, name="trace.surf"):
        desc = self.path(name + ".json")
        with open(desc, "w") as f:
            f.write(description if isinstance(description, str) else json.dumps(description))
        out = self.path(name)
        run([binary("gltrace"), "surface", "create", desc, "-o", out], check=0)
        return out


def scene_json():
    """tests/surface/scene.json: the description the composition checks are about."""
    with open(os.path.join(HERE, "scene.json")) as f:
        return f.read()


def stream_of(trace_bytes):
    """The stream form of a plain Trace: its increments (field 1) without their tags."""
    out, pos = bytearray(b"GLSURF1\n"), 0
    while pos < len(trace_bytes):
        assert trace_bytes[pos] == 0x0A
        pos += 1
        length, shift, start = 0, 0, pos
        while True:
            byte = trace_bytes[pos]
            pos += 1
            length |= (byte & 0x7F) << shift
            shift += 7
            if byte < 0x80:
                break
        out += trace_bytes[start:pos] + trace_bytes[pos:pos + length]
        pos += length
    return bytes(out)


class SurfaceTest(unittest.TestCase):
    def setUp(self):
        os.environ.setdefault("XDG_RUNTIME_DIR", tempfile.mkdtemp())
        self.work = Workdir(self)

    def assertColour(self, actual, expected, where, tolerance=3):
        if any(abs(a - e) > tolerance for a, e in zip(actual, expected)):
            self.fail(f"{where}: {actual}, expected {tuple(round(e) for e in expected)}")

    def replay(self, trace, *options, check=0, timeout=TIMEOUT):
        return run([binary("surfacereplayer"), *options, trace], check=check, timeout=timeout)

    # ---- composition ---------------------------------------------------------------

    def test_compose_two_displays(self):
        """Overlapping, transparent, cropped, rotated, deleted, rounded and hidden
        surfaces on two displays: each at its place in the composited images."""
        trace = self.work.create(scene_json())
        out = self.work.path("out")
        result = self.replay(trace, "-n", "-o", out)
        self.assertIn("11 VSyncs (11 images)", result.stdout)
        files = sorted(os.listdir(out))
        self.assertEqual(files, [f"display-1-vsync-{k:06d}.png" for k in range(7)] +
                         [f"display-2-vsync-{k:06d}.png" for k in range(4)])

        first = read_png(os.path.join(out, "display-1-vsync-000000.png"))
        self.assertEqual(first[:2], (200, 150))
        c = {i: colour(i, 0) for i in range(1, 9)}
        checks = [
            ((10, 10), c[1], "background"),
            ((12, 12), c[1], "surface 7 is on display 2's layer stack only"),
            ((50, 50), c[2], "surface 2 above the background"),
            ((130, 50), mix(c[3], c[1], 0.5), "surface 3 at alpha 0.5"),
            ((30, 110), c[4], "inside surface 4's crop"),
            ((70, 110), c[1], "right of surface 4's crop (its buffer is 100 wide)"),
            ((30, 140), c[1], "below surface 4's crop (its buffer is 100 high)"),
            ((180, 125), c[5], "surface 5 turned a quarter clockwise (down from its position)"),
            ((195, 100), c[1], "where surface 5 would be unturned"),
            ((140, 100), c[6], "surface 6 before its deletion"),
        ]
        for (x, y), expected, what in checks:
            self.assertColour(pixel(first, x, y), expected, f"display 1, VSync 0, ({x}, {y}): {what}")

        last = read_png(os.path.join(out, "display-1-vsync-000006.png"))
        self.assertColour(pixel(last, 140, 100), colour(1, 1), "surface 6 deleted at 40 ms")
        self.assertColour(pixel(last, 10, 10), colour(1, 1),
                          "the background's second buffer (50 ms): its colour modulated")
        self.assertNotEqual(colour(1, 0), colour(1, 1))
        self.assertColour(pixel(last, 50, 50), c[2], "surface 2 unchanged")

        second = read_png(os.path.join(out, "display-2-vsync-000000.png"))
        self.assertEqual(second[:2], (100, 100))
        for (x, y), expected, what in [
            ((30, 30), c[7], "surface 7"),
            ((11, 11), BLACK, "surface 7's rounded corner"),
            ((58, 58), BLACK, "surface 7's rounded corner (bottom right)"),
            ((55, 30), c[7], "surface 7's right edge, away from its corners"),
            ((5, 5), BLACK, "nothing"),
            ((70, 70), BLACK, "surface 8 is hidden"),
            ((10 + 60, 10), BLACK, "the background is on display 1's layer stack only"),
        ]:
            self.assertColour(pixel(second, x, y), expected, f"display 2, ({x}, {y}): {what}")

    def test_vsync_count_equals_the_trace(self):
        trace = self.work.create(scene_json())
        described = run([binary("gltrace"), "surface", "describe", trace], check=0).stdout
        vsyncs = len(re.findall(r'"vsync":', described))
        out = self.work.path("out")
        self.replay(trace, "-n", "-o", out)
        self.assertEqual(len(os.listdir(out)), vsyncs)

    def test_buffer_transform_scale_and_projection(self):
        """A buffer scale halves the surface; a display projection moves and turns
        what it shows."""
        trace = self.work.create({
            "events": [
                {"t": 0, "display": {"id": 1, "w": 100, "h": 100}},
                {"t": 0, "surface": {"id": 3}},
                {"t": 0, "transaction": {"surfaces": [
                    {"id": 3, "position": [10, 10], "buffer_scale": 2}]}},
                {"t": 0, "buffer": {"surface": 3, "w": 40, "h": 20}},
                {"t": 0, "vsync": {"display": 1}},
                {"t": 1, "transaction": {"displays": [
                    {"id": 1, "projection": {"orientation": 2, "viewport": [0, 0, 100, 100],
                                             "frame": [0, 0, 100, 100]}}]}},
                {"t": 2, "vsync": {"display": 1}},
            ]})
        out = self.work.path("out")
        self.replay(trace, "-n", "-o", out)
        plain = read_png(os.path.join(out, "display-1-vsync-000000.png"))
        self.assertColour(pixel(plain, 15, 15), colour(3, 0), "scaled surface")
        self.assertColour(pixel(plain, 35, 15), BLACK, "beyond 40/2 pixels")
        self.assertColour(pixel(plain, 15, 25), BLACK, "beyond 20/2 pixels")
        turned = read_png(os.path.join(out, "display-1-vsync-000001.png"))
        self.assertColour(pixel(turned, 84, 84), colour(3, 0), "turned half a turn")
        self.assertColour(pixel(turned, 15, 15), BLACK, "turned away")

    def test_recorded_contents_and_buffer_transform(self):
        """A buffer's recorded pixels (ARGB8888: bytes B, G, R, A) are shown, turned by
        its wl_output transform as weston samples it (90: surface x runs down the buffer)."""
        import base64
        red, blue = b"\x00\x00\xff\xff", b"\xff\x00\x00\xff"
        contents = base64.b64encode(red + blue).decode()  # 2x1: red, then blue
        # Premultiplied green at alpha 0.5, drawn opaque (3) and blended (4).
        green = base64.b64encode(b"\x00\x80\x00\x80" * 2).decode()
        events = [{"t": 0, "display": {"id": 1, "w": 20, "h": 10}}] + [
                  {"t": 0, "surface": {"id": i}} for i in (1, 2, 3, 4)] + [
                  {"t": 0, "transaction": {"surfaces": [
                      {"id": 1, "size": [4, 8]},
                      {"id": 2, "position": [10, 0], "size": [4, 8], "buffer_transform": 1},
                      {"id": 3, "position": [2, 0], "size": [2, 2], "layer": 1, "opaque": True},
                      {"id": 4, "position": [12, 0], "size": [2, 2], "layer": 1}]}},
                  {"t": 0, "buffer": {"surface": 1, "w": 2, "h": 1, "contents": contents}},
                  {"t": 0, "buffer": {"surface": 2, "w": 2, "h": 1, "contents": contents}},
                  {"t": 0, "buffer": {"surface": 3, "w": 2, "h": 1, "contents": green}},
                  {"t": 0, "buffer": {"surface": 4, "w": 2, "h": 1, "contents": green}},
                  {"t": 0, "vsync": {"display": 1}}]
        trace = self.work.create({"events": events})
        out = self.work.path("out")
        self.replay(trace, "-n", "-o", out)
        image = read_png(os.path.join(out, "display-1-vsync-000000.png"))
        self.assertColour(pixel(image, 0, 4), (255, 0, 0), "untransformed: left is red")
        self.assertColour(pixel(image, 3, 4), (0, 0, 255), "untransformed: right is blue")
        self.assertColour(pixel(image, 10, 1), (255, 0, 0), "transform 90: top is red")
        self.assertColour(pixel(image, 10, 6), (0, 0, 255), "transform 90: bottom is blue")
        self.assertColour(pixel(image, 3, 0), (0, 128, 0), "opaque: its alpha taken as 1")
        self.assertColour(pixel(image, 13, 0), (128, 128, 0), "alpha 0.5 over red")

    def test_relative_parents_and_children(self):
        """Z relative to a relative parent (above with z >= 0, below with z < 0,
        under a higher layer), a child placed and moved with its parent, and a
        relative-parent cycle that must not hang or crash."""
        surfaces = [{"t": 0, "surface": {"id": i}} for i in (1, 2, 3, 5, 6, 7)]
        events = [{"t": 0, "display": {"id": 1, "w": 40, "h": 20}}] + surfaces + [
            {"t": 0, "surface": {"id": 4, "parent": 1}},
            {"t": 0, "transaction": {"surfaces": [
                {"id": 2, "position": [20, 0], "layer": 5},
                {"id": 3, "position": [15, 0], "relative_parent": {"id": 1, "z": 1}},
                {"id": 4, "position": [2, 2]},
                {"id": 5, "position": [100, 0], "relative_parent": {"id": 6}},
                {"id": 6, "position": [100, 0], "relative_parent": {"id": 5}},
                {"id": 7, "relative_parent": {"id": 1, "z": -1}}]}},
            {"t": 0, "buffer": {"surface": 1, "w": 20, "h": 10}},
            {"t": 0, "buffer": {"surface": 2, "w": 20, "h": 10}},
            {"t": 0, "buffer": {"surface": 3, "w": 10, "h": 10}},
            {"t": 0, "buffer": {"surface": 4, "w": 4, "h": 4}},
            {"t": 0, "buffer": {"surface": 5, "w": 4, "h": 4}},
            {"t": 0, "buffer": {"surface": 6, "w": 4, "h": 4}},
            {"t": 0, "buffer": {"surface": 7, "w": 40, "h": 20}},
            {"t": 0, "vsync": {"display": 1}},
            {"t": 1, "transaction": {"surfaces": [{"id": 1, "position": [0, 10]}]}},
            {"t": 2, "vsync": {"display": 1}}]
        trace = self.work.create({"events": events})
        out = self.work.path("out")
        self.replay(trace, "-n", "-o", out)
        first = read_png(os.path.join(out, "display-1-vsync-000000.png"))
        for (x, y), expected, what in [
            ((5, 8), colour(1, 0), "surface 1"),
            ((17, 5), colour(3, 0), "surface 3 above its relative parent 1"),
            ((22, 5), colour(2, 0), "surface 2's higher layer above surface 3"),
            ((3, 3), colour(4, 0), "child 4 at its parent's position + (2, 2)"),
            ((35, 15), colour(7, 0), "surface 7, below its relative parent, where nothing else is"),
        ]:
            self.assertColour(pixel(first, x, y), expected, f"VSync 0, ({x}, {y}): {what}")
        moved = read_png(os.path.join(out, "display-1-vsync-000001.png"))
        self.assertColour(pixel(moved, 3, 13), colour(4, 0), "child 4 moved with its parent")
        self.assertColour(pixel(moved, 3, 3), colour(7, 0), "nothing of surface 1 or 4 left there")

    def test_x11_windows_show_what_headless_shows(self):
        """--x11: one window per display under an Xvfb of the test's own; the
        images read back from the windows are the headless ones."""
        import random
        display = f":{random.randint(100, 999)}"
        xvfb = subprocess.Popen(["Xvfb", display, "-screen", "0", "640x480x24", "-nolisten", "tcp"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.addCleanup(lambda: (xvfb.kill(), xvfb.wait()))
        env = dict(os.environ, DISPLAY=display)
        for _ in range(100):
            if os.path.exists(f"/tmp/.X11-unix/X{display[1:]}"):
                break
            time.sleep(0.05)
        trace = self.work.create(scene_json())
        headless, x11 = self.work.path("headless"), self.work.path("x11")
        self.replay(trace, "-n", "-o", headless)
        result = run([binary("surfacereplayer"), "--x11", "-n", "-o", x11, trace], env=env)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(sorted(os.listdir(x11)), sorted(os.listdir(headless)))
        for name in sorted(os.listdir(headless)):
            a = read_png(os.path.join(headless, name))
            b = read_png(os.path.join(x11, name))
            self.assertEqual(a[:2], b[:2], name)
            differing = sum(1 for ra, rb in zip(a[2], b[2]) for i in range(0, len(ra), 4)
                            if max(abs(x - y) for x, y in zip(ra[i:i + 3], rb[i:i + 3])) > 2)
            self.assertEqual(differing, 0, name)

    def test_library_example(self):
        """src/surface/example: the library's Replayer on a Trace built in memory."""
        out = self.work.path("out")
        result = run([binary("surface-replay-example"), out], check=0)
        self.assertIn("30 VSyncs (30 images)", result.stdout)
        image = read_png(os.path.join(out, "display-1-vsync-000010.png"))
        self.assertColour(pixel(image, 100, 100), colour(2, 10), "the sprite at (80, 80)")
        self.assertColour(pixel(image, 20, 20), colour(1, 10), "the background")

    # ---- creator and format --------------------------------------------------------

    def test_create_describe_round_trip(self):
        first = self.work.create(scene_json(), "first")
        described = run([binary("gltrace"), "surface", "describe", first], check=0).stdout
        second = self.work.create(described, "second")
        with open(first, "rb") as a, open(second, "rb") as b:
            self.assertEqual(a.read(), b.read())
        again = run([binary("gltrace"), "surface", "describe", second], check=0).stdout
        self.assertEqual(described, again)

    def test_round_trip_keeps_contents_and_odd_values(self):
        contents = "AAD/gP8A/4A="  # 2x1 ARGB8888, base64
        first = self.work.create({
            "start_ns": 9223372036854775000,  # the next 1.5 ms wrap past INT64_MAX
            "events": [
                {"t": 0, "surface": {"id": -4, "name": "é", "role": "subsurface", "parent": 0}},
                {"t": "1.5ms", "buffer": {"surface": -4, "w": 2, "h": 1, "format": 875713089,
                                          "contents": contents}},
                {"t": -5, "vsync": {"display": 7, "when": 99}},
                {"t": 3, "none": None},
                {"t": 4, "transaction": {"surfaces": [{"id": -4}, {"id": -4, "crop": None}],
                                         "displays": [{"id": 1, "projection": {
                                             "orientation": 1}}]}},
            ]}, "first")
        described = run([binary("gltrace"), "surface", "describe", first], check=0).stdout
        self.assertIn(contents, described)
        second = self.work.create(described, "second")
        with open(first, "rb") as a, open(second, "rb") as b:
            self.assertEqual(a.read(), b.read())

    def test_generators(self):
        trace = self.work.create({
            "events": [{"t": 0, "display": {"id": 1, "w": 10, "h": 10}},
                       {"t": 0, "surface": {"id": 1}}],
            "updates": [{"surface": 1, "rate_hz": 30, "from": 0, "to": "1s", "w": 4, "h": 4}],
            "vsync": [{"display": 1, "rate_hz": 60, "from": 0, "to": "1s"}]})
        described = json.loads(run([binary("gltrace"), "surface", "describe", trace],
                                   check=0).stdout)
        events = described["events"]
        updates = [e for e in events if "buffer" in e]
        vsyncs = [e for e in events if "vsync" in e]
        self.assertEqual(len(updates), 31)
        self.assertEqual(len(vsyncs), 61)
        self.assertEqual(vsyncs[-1]["t"], 1000000000)
        self.assertEqual([u["buffer"]["frame"] for u in updates], list(range(31)))
        # At one time, a buffer update comes before the VSync that shows it.
        self.assertEqual([list(e)[1] for e in events[2:4]], ["buffer", "vsync"])

    def test_protoc_decodes_a_trace_and_a_converted_stream(self):
        plain = self.work.create(scene_json())
        protoc = ["protoc", "--decode=gltrace.surface.Trace", "-I", os.path.join(SOURCE, "proto"),
                  os.path.join(SOURCE, "proto", "surface.proto")]
        with open(plain, "rb") as f:
            decoded = run(protoc, stdin=f, check=0).stdout
        self.assertEqual(decoded.count("vsync_event"), 11)
        self.assertIn("display_creation", decoded)
        with open(plain, "rb") as f:
            plain_bytes = f.read()
        stream = self.work.path("stream.surf")
        with open(stream, "wb") as f:
            f.write(stream_of(plain_bytes))
        converted = self.work.path("converted.surf")
        run([binary("gltrace"), "surface", "convert", "--to-trace", stream, converted], check=0)
        with open(converted, "rb") as f:
            self.assertEqual(f.read(), plain_bytes)
        # The stream replays as the plain trace does.
        result = self.replay(stream, "-n")
        self.assertIn("11 VSyncs", result.stdout)

    # ---- the engine's scheduling ----------------------------------------------------

    def test_consecutive_updates_of_one_surface_one_worker(self):
        """The seed's deadlock: buffer updates of one surface back to back, with
        one worker (and with several). Each finishes; the last buffer is shown."""
        events = [{"t": 0, "display": {"id": 1, "w": 20, "h": 20}},
                  {"t": 0, "surface": {"id": 1}}, {"t": 0, "surface": {"id": 2}},
                  {"t": 0, "transaction": {"surfaces": [{"id": 2, "position": [10, 0]}]}}]
        for k in range(2):
            events.append({"t": 0, "buffer": {"surface": 1, "w": 10, "h": 10}})
        for k in range(50):
            events.append({"t": k, "buffer": {"surface": 1, "w": 10, "h": 10}})
            events.append({"t": k, "buffer": {"surface": 1, "w": 10, "h": 10}})
            events.append({"t": k, "buffer": {"surface": 2, "w": 10, "h": 10}})
        events.append({"t": 60, "vsync": {"display": 1}})
        trace = self.work.create({"events": events})
        for threads in ("1", "3"):
            out = self.work.path("out" + threads)
            result = self.replay(trace, "-n", "-t", threads, "-o", out, timeout=60)
            self.assertIn("1 VSyncs (1 images)", result.stdout)
            image = read_png(os.path.join(out, "display-1-vsync-000000.png"))
            self.assertColour(pixel(image, 5, 5), colour(1, 101), f"-t {threads}: surface 1")
            self.assertColour(pixel(image, 15, 5), colour(2, 49), f"-t {threads}: surface 2")

    def test_one_buffer_in_preparation_per_surface(self):
        """The per-surface scheduler: however many workers, a surface's next
        buffer is prepared only once its previous one was posted, so one
        surface holds at most two buffers (shown and next): 20 updates of
        64 MiB with 3 workers fit in 160 MiB."""
        events = [{"t": 0, "surface": {"id": 1}}]
        events += [{"t": k, "buffer": {"surface": 1, "w": 4096, "h": 4096}} for k in range(20)]
        trace = self.work.create({"events": events})
        result = run([binary("surfacereplayer"), "-n", "-t", "3", "--buffer-memory", "160",
                      trace], timeout=120)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("replayed 21 increments", result.stdout)

    # ---- manual mode ---------------------------------------------------------------

    def spawn(self, args):
        pid, fd = pty.fork()
        if pid == 0:
            os.execv(args[0], args)
        self.addCleanup(self.reap, pid, fd)
        self.output = ""
        return pid, fd

    def reap(self, pid, fd):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        try:
            os.waitpid(pid, 0)
        except ChildProcessError:
            pass
        os.close(fd)

    def expect(self, fd, pattern, timeout=60):
        """Reads until pattern matches what came since the last expect()."""
        deadline = time.monotonic() + timeout
        while True:
            match = re.search(pattern, self.output)
            if match:
                self.before = self.output[:match.start()]
                self.output = self.output[match.end():]
                return match
            left = deadline - time.monotonic()
            if left <= 0:
                self.fail(f"no {pattern!r} within {timeout} s; got {self.output!r}")
            ready, _, _ = select.select([fd], [], [], left)
            if ready:
                try:
                    chunk = os.read(fd, 4096)
                except OSError:
                    chunk = b""
                if not chunk:
                    self.fail(f"the replay ended before {pattern!r}; got {self.output!r}")
                self.output += chunk.decode(errors="replace")

    def wait_exit(self, pid, timeout=60):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                return os.waitstatus_to_exitcode(status)
            time.sleep(0.05)
        self.fail("the replay did not end")

    def test_manual_mode_through_a_terminal(self):
        trace = self.work.create(scene_json())
        out = self.work.path("out")
        pid, fd = self.spawn([binary("surfacereplayer"), "-m", "-o", out, trace])
        prompt = r"\(replay\) "
        self.expect(fd, r"stopped before call 0 \(frame 0, \+0\.000000 s\)")
        self.expect(fd, prompt)
        os.write(fd, b"l\n")
        self.expect(fd, r"time \+0\.000000 s \(0 ns\); next: call 0")
        self.expect(fd, prompt)
        os.write(fd, b"ni\n")  # one increment: display 1 is created
        self.expect(fd, r"stopped before call 1 ")
        self.expect(fd, prompt)
        self.assertEqual(os.listdir(out), [])
        os.write(fd, b"n\n")  # to the first VSync (display 1's)
        self.expect(fd, r"stopped before call 20 \(frame 1,")
        self.expect(fd, prompt)
        self.assertEqual(sorted(os.listdir(out)), ["display-1-vsync-000000.png"])
        os.write(fd, b"\n")  # Enter repeats n: display 2's VSync at 0
        self.expect(fd, r"stopped before call 21 \(frame 2,")
        self.expect(fd, prompt)
        self.assertEqual(len(os.listdir(out)), 2)
        os.write(fd, b"s 45ms\n")  # past the deletion at 40 ms
        self.expect(fd, r"stopped at \+0\.045000 s, before call 25 \(frame 5, \+0\.050000 s\)")
        self.expect(fd, prompt)
        self.assertEqual(len(os.listdir(out)), 5)
        os.write(fd, b"info\n")  # the scene now: surface 6 deleted
        self.expect(fd, prompt)
        self.assertIn("surface 5 'rotated' at (190, 90)", self.before)
        self.assertNotIn("surface 6", self.before)
        snap = self.work.path("snap.png")
        os.write(fd, f"snap {snap}\n".encode())
        self.expect(fd, r"saved ")
        self.expect(fd, prompt)
        snapped = read_png(snap)  # the display of the last VSync (display 2's at 33 ms)
        self.assertEqual(snapped[:2], (100, 100))
        self.assertColour(pixel(snapped, 30, 30), colour(7, 0), "snap: surface 7")
        os.write(fd, b"c 30\n")  # to 75 ms: the VSyncs at 50 and 66.7 ms
        self.expect(fd, r"stopped at \+0\.075000 s, before call 29")
        self.expect(fd, prompt)
        self.assertEqual(len(os.listdir(out)), 8)
        os.write(fd, b"h\n")
        self.expect(fd, r"ni \[COUNT\]")
        self.expect(fd, prompt)
        os.write(fd, b"c\n")
        self.expect(fd, r"replayed 32 increments, 11 VSyncs \(11 images\)")
        self.assertEqual(self.wait_exit(pid), 0)
        self.assertEqual(len(os.listdir(out)), 11)

    def test_manual_quit_and_stop_timestamp(self):
        trace = self.work.create(scene_json())
        pid, fd = self.spawn([binary("surfacereplayer"), "-s", "40000000", trace])
        self.expect(fd, r"stopped (at \+0\.040000 s, )?before call 24 \(frame 5, \+0\.040000 s\)")
        self.expect(fd, r"\(replay\) ")
        os.write(fd, b"q\n")
        self.expect(fd, r"quit before call 24")
        self.assertEqual(self.wait_exit(pid), 0)

    def test_ctrl_c_enters_manual_mode_and_a_second_exits(self):
        trace = self.work.create({
            "events": [{"t": 0, "display": {"id": 1, "w": 16, "h": 16}}],
            "vsync": [{"display": 1, "rate_hz": 60, "from": 0, "to": "60s"}]})
        pid, fd = self.spawn([binary("surfacereplayer"), trace])
        time.sleep(1)
        os.write(fd, b"\x03")
        self.expect(fd, r"interrupted: stopped (at \+[\d.]+ s, )?before call \d+")
        self.expect(fd, r"\(replay\) ")
        os.write(fd, b"l\n")
        self.expect(fd, r"time \+\d")
        self.expect(fd, r"\(replay\) ")
        os.write(fd, b"\x03")
        self.expect(fd, r"interrupted \(Ctrl-C at the prompt\)")
        self.assertEqual(self.wait_exit(pid), 1)

    def test_loop_replays_the_trace_again(self):
        """-l: each pass starts from an empty scene (the trace's creations would
        fail as duplicates otherwise) and rewrites the same images."""
        trace = self.work.create(scene_json())
        out = self.work.path("out")
        pid, fd = self.spawn([binary("surfacereplayer"), "-l", "-n", "-o", out, trace])
        time.sleep(2)
        os.write(fd, b"\x03")
        match = self.expect(fd, r"interrupted: stopped .*pass (\d+)\)")
        self.assertGreaterEqual(int(match.group(1)), 2)
        self.expect(fd, r"\(replay\) ")
        self.assertEqual(len(os.listdir(out)), 11)
        os.write(fd, b"\x03")
        self.assertEqual(self.wait_exit(pid), 1)

    # ---- bad input -------------------------------------------------------------------

    def assertFails(self, args, message, status=1):
        result = run(args, timeout=60)
        self.assertEqual(result.returncode, status, result.stderr)
        self.assertRegex(result.stderr, message)
        self.assertNotIn("Sanitizer", result.stderr)

    def test_cut_stream_replays_what_is_complete(self):
        plain = self.work.create(scene_json())
        with open(plain, "rb") as f:
            stream = stream_of(f.read())
        cut = self.work.path("cut.surf")
        with open(cut, "wb") as f:
            f.write(stream[:len(stream) - 3])
        result = self.replay(cut, "-n")
        self.assertIn("warning: ", result.stdout)
        self.assertIn("cut inside the increment", result.stdout)
        self.assertIn("replayed 31 increments, 10 VSyncs", result.stdout)
        converted = self.work.path("converted.surf")
        result = run([binary("gltrace"), "surface", "convert", "--to-trace", cut, converted],
                     check=0)
        self.assertIn("cut inside the increment", result.stderr)

    def test_hostile_traces(self):
        bogus = self.work.path("bogus.surf")
        with open(bogus, "wb") as f:
            f.write(b"GLSURF1\n" + b"\xff\xff\xff\xff\xff\xff\xff\xff\x7f" + b"x" * 10)
        self.assertFails([binary("surfacereplayer"), "-n", bogus], r"claims \d+ bytes")
        garbage = self.work.path("garbage.surf")
        with open(garbage, "wb") as f:
            f.write(bytes(range(256)) * 4)
        self.assertFails([binary("surfacereplayer"), "-n", garbage], r"not a surface trace")
        self.assertFails([binary("surfacereplayer"), "-n", self.work.path("missing")],
                         r"No such file")

        made = []

        def scene(*events):
            made.append(len(made))
            return self.work.create(name=f"case{len(made)}.surf", description={"events": [
                {"t": 0, "display": {"id": 1, "w": 10, "h": 10}},
                {"t": 0, "surface": {"id": 1}}] + list(events)})

        cases = [
            (scene({"t": 1, "transaction": {"surfaces": [{"id": 99, "alpha": 1}]}}),
             r"increment 2: execute failed: a transaction changes surface 99, which does not "
             r"exist"),
            (scene({"t": 1, "buffer": {"surface": 42, "w": 4, "h": 4}}),
             r"surface 42, which does not exist"),
            (scene({"t": 1, "delete_surface": 3}), r"deletion of surface 3"),
            (scene({"t": 1, "vsync": {"display": 5}}), r"VSync of display 5, which does not exist"),
            (scene({"t": 1, "buffer": {"surface": 1, "w": 100000, "h": 100000}}),
             r"100000x100000 is not a buffer size"),
            (scene({"t": 1, "buffer": {"surface": 1, "w": 4294967295, "h": 2}}),
             r"4294967295x2 is not a buffer size"),
            (scene({"t": 1, "display": {"id": 2, "w": 70000, "h": 10}}), r"display 2 is 70000x10"),
            (scene({"t": 1, "buffer": {"surface": 1, "w": 2, "h": 2, "contents": "AAAA"}}),
             r"contents hold 3 bytes, a 2x2 buffer has 16"),
            (scene({"t": 1, "buffer": {"surface": 1, "w": 1, "h": 1, "format": 7,
                                       "contents": "AAAAAA=="}}), r"format 0x00000007"),
            (scene({"t": 1, "transaction": {"surfaces": [{"id": 1, "buffer_transform": 9}]}}),
             r"buffer transform 9"),
            (scene({"t": 1, "transaction": {"surfaces": [
                {"id": 1, "relative_parent": {"id": 1}}]}}), r"relative parent is itself"),
            (scene({"t": 1, "surface": {"id": 1}}), r"surface 1 is created twice"),
            (scene({"t": 1, "display": {"id": 2, "w": 8192, "h": 8192}}),
             r"display 2 is 8192x8192: the displays would have 67108964 pixels in all"),
            (scene({"t": 1, "transaction": {"displays": [{"id": 1, "size": [0, 5]}]}}),
             r"display 1 is 0x5: sides must be 1 to 8192"),
            (scene({"t": 1, "transaction": {"surfaces": [{"id": 1, "corner_radius": -1}]}}),
             r"corner radius is not a finite number >= 0"),
        ]
        for trace, message in cases:
            self.assertFails([binary("surfacereplayer"), "-n", trace], message)

    def test_buffer_memory_is_bounded(self):
        events = [{"t": 0, "display": {"id": 1, "w": 10, "h": 10}}]
        for i in range(1, 40):
            events.append({"t": 0, "surface": {"id": i}})
            events.append({"t": 0, "buffer": {"surface": i, "w": 4096, "h": 4096}})
        trace = self.work.create({"events": events})
        result = run(["/usr/bin/time", "-f", "maxrss %M", binary("surfacereplayer"), "-n",
                      "--buffer-memory", "256", trace], timeout=120)
        self.assertEqual(result.returncode, 1, result.stderr)
        self.assertIn("would take more than 256 MiB", result.stderr)
        maxrss_kib = int(re.search(r"maxrss (\d+)", result.stderr).group(1))
        self.assertLess(maxrss_kib, 600 * 1024)

    def test_deleted_displays_free_their_images(self):
        """Displays created, shown and deleted in turn: the compositor keeps no
        image of a deleted display (40 of 2048x2048 would hold 640 MiB)."""
        events = []
        for i in range(1, 41):
            events += [{"t": i, "display": {"id": i, "w": 2048, "h": 2048}},
                       {"t": i, "vsync": {"display": i}},
                       {"t": i, "delete_display": i}]
        trace = self.work.create({"events": events})
        result = run(["/usr/bin/time", "-f", "maxrss %M", binary("surfacereplayer"), "-n",
                      trace], timeout=240)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("40 VSyncs", result.stdout)
        maxrss_kib = int(re.search(r"maxrss (\d+)", result.stderr).group(1))
        self.assertLess(maxrss_kib, 400 * 1024)

    def test_bad_descriptions(self):
        cases = [
            ("{", r"not JSON"),
            ('{"events": [{"t": 0, "surfce": {"id": 1}}]}', r"events\[0\]: unknown key 'surfce'"),
            ('{"events": [{"t": 0, "surface": {"id": "one"}}]}',
             r"events\[0\]\.surface\.id: wants an integer, not string"),
            ('{"events": [{"t": "5 parsecs", "vsync": {}}]}', r"events\[0\]\.t: '5 parsecs' is no time"),
            ('{"events": [{"t": 0, "vsync": {}, "buffer": {}}]}', r"wants a time"),
            ('{"vsync": [{"display": 1, "rate_hz": 1e6, "from": 0, "to": "1000s"}]}',
             r"vsync\[0\]: would make more than"),
            ('{"vsync": [{"display": 1, "rate_hz": 1, "from": -9223372036854775807, "to": 1}]}',
             r"vsync\[0\]\.from: out of range"),
            ('{"updates": [{"surface": 1, "rate_hz": 0, "from": 0, "to": 1, "w": 1, "h": 1}]}',
             r"updates\[0\]\.rate_hz: wants a rate"),
            ('{"events": [{"t": 0, "transaction": {"surfaces": [{"id": 1, "crop": [1, 2]}]}}]}',
             r"crop: wants an array of 4 numbers"),
        ]
        for text, message in cases:
            desc = self.work.path("bad.json")
            with open(desc, "w") as f:
                f.write(text)
            self.assertFails([binary("gltrace"), "surface", "create", desc, "-o",
                              self.work.path("bad.surf")], message)
        self.assertFalse(os.path.exists(self.work.path("bad.surf")))

    def test_usage(self):
        self.assertFails([binary("surfacereplayer")], r"missing TRACE", status=2)
        self.assertFails([binary("surfacereplayer"), "-t", "0", "x"], r"at least 1 worker",
                         status=2)
        self.assertFails([binary("surfacereplayer"), "--bogus", "x"], r"unknown option", status=2)
        self.assertFails([binary("gltrace"), "surface", "nope"], r"unknown subcommand", status=2)
        result = run([binary("surfacereplayer"), "-h"], check=0)
        self.assertIn("-o, --output DIR", result.stdout)


if __name__ == "__main__":
    BUILD = os.path.abspath(sys.argv[1])
    unittest.main(argv=[sys.argv[0]] + sys.argv[2:])
