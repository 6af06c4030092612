#!/usr/bin/env python3
"""Real Debian programs that use EGL + GLES in different ways (a classic
benchmark, Wayland clients and a compositor, toolkit loaders, a media
pipeline), each traced with `gltrace trace --framebuffer swap` and replayed
headless with `gltrace replay -n --compare`: every frame must be identical.

  real_apps.py BUILD_DIR WORK_DIR [--set ci|all] [--only NAME...] [--strict] [--list]

Prints one row per program: calls, frames, identical/total and the verdict,
and for every program that is not identical the first lines replay printed
about it. Verdicts: PASS, FAIL (a frame differs, a call could not be replayed,
a trace is unreadable or the program failed), XFAIL (fails for a known reason
that another fix addresses; the reason is printed), XPASS (a known failure now
passes: make it a required one), SKIP (program not installed).
Exits 1 if any required program FAILs (with --strict, XFAIL counts as FAIL),
0 otherwise; when nothing ran at all it says "0 passed, 0 failed, N skipped".
"""

import argparse
import dataclasses
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

SDL_TESTS = "/usr/libexec/installed-tests/SDL2"
QML = os.path.join(os.path.dirname(os.path.abspath(__file__)), "spin.qml")
GLMARK2_SCENES = ("build", "texture", "shading", "bump", "effect2d", "pulsar", "desktop",
                  "buffer", "ideas", "jellyfish", "terrain", "refract", "shadow")


@dataclasses.dataclass
class App:
    name: str
    package: str           # the Debian package the program comes from
    how: str               # how it reaches EGL + GLES
    platform: str          # "x11" (Xvfb), "wayland" (weston headless) or "compositor"
    argv: list
    env: dict = dataclasses.field(default_factory=dict)
    run_for: float = 0.0   # > 0: stop the program with stop_signal after this many seconds
    stop_signal: int = signal.SIGINT
    cwd: str = None
    known: str = None      # why it is known not to replay identically yet (XFAIL)
    ci: bool = False       # in the CI-sized subset (must replay identically)


GST_X11 = {"GST_GL_API": "gles2", "GST_GL_PLATFORM": "egl", "GST_GL_WINDOW": "x11"}
SDL_EGL = {"SDL_VIDEO_X11_FORCE_EGL": "1", "SDL_OPENGL_ES_DRIVER": "1"}

APPS = [
    App("glmark2-13-scenes", "glmark2-es2-x11", "dlopen + glad, a context per scene", "x11",
        ["/usr/bin/glmark2-es2", "-s", "320x240"] +
        [a for s in GLMARK2_SCENES for a in ("-b", f"{s}:duration=0.3")], ci=True),
    App("glmark2-off-screen", "glmark2-es2-x11", "FBO only, no eglSwapBuffers", "x11",
        ["/usr/bin/glmark2-es2", "--off-screen", "-s", "320x240", "-b", "shading:duration=0.5",
         "-b", "texture:duration=0.5"],
        ci=True),
    App("weston-simple-egl", "weston", "Wayland client, wl_egl_window", "wayland",
        ["/usr/bin/weston-simple-egl"], run_for=2.0, ci=True),
    App("weston-simple-egl-16bpp", "weston", "Wayland client, RGB565 config", "wayland",
        ["/usr/bin/weston-simple-egl", "-s", "-o", "-b"], run_for=1.5),
    App("weston-compositor", "weston", "compositor: gl-renderer, surfaceless, pbuffer",
        "compositor", ["/usr/bin/weston", "--backend=headless-backend.so", "--use-gl",
                       "--width=320", "--height=240"], stop_signal=signal.SIGTERM, ci=True),
    App("es2gears-wayland", "mesa-utils-bin", "Wayland client (eglut)", "wayland",
        ["/usr/bin/es2gears_wayland.x86_64-linux-gnu"], run_for=2.0, stop_signal=signal.SIGTERM),
    App("es2gears-x11", "mesa-utils-bin", "X11 window (eglut), 1-bit colour config", "x11",
        ["/usr/bin/es2gears_x11.x86_64-linux-gnu"], run_for=1.0, stop_signal=signal.SIGTERM,
        known="config: app asks for 1-bit colour sizes and gets the X visual's 8-8-8 config; "
              "headless replay re-chooses and gets 10-10-10-2 (max channel difference 1); "
              "--x11 replay is identical (egl fix)"),
    App("sdl2-testgles2", "libsdl2-tests", "SDL2 loader: dlopen + eglGetProcAddress", "x11",
        [f"{SDL_TESTS}/testgles2", "--geometry", "320x240"], env=SDL_EGL, run_for=2.0, ci=True),
    App("sdl2-testsprite2", "libsdl2-tests", "SDL2 renderer on GLES2 (batched 2D)", "x11",
        [f"{SDL_TESTS}/testsprite2", "--renderer", "opengles2", "--geometry", "320x240", "20"],
        env=SDL_EGL, run_for=1.5, cwd=SDL_TESTS, ci=True),
    App("gst-glimagesink", "gstreamer1.0-gl", "media pipeline: GL thread, X11 window", "x11",
        ["/usr/bin/gst-launch-1.0", "gltestsrc", "num-buffers=40", "!",
         "video/x-raw(memory:GLMemory),width=320,height=240", "!", "glimagesink"], env=GST_X11,
        ci=True),
    App("gst-gleffects-download", "gstreamer1.0-gl", "media pipeline, off-screen: FBO + "
        "glReadPixels into a PBO", "x11",
        ["/usr/bin/gst-launch-1.0", "videotestsrc", "num-buffers=30", "!",
         "video/x-raw,width=320,height=240", "!", "glupload", "!", "gleffects", "effect=twirl",
         "!", "gldownload", "!", "filesink", "location=/dev/null"], env=GST_X11,
        known="off-screen: no swap, so no frame boundary and no image to compare (frames fix)"),
    App("mpv", "mpv", "video player: VO thread, x11egl, window resized after creation", "x11",
        ["/usr/bin/mpv", "--no-config", "--vo=gpu", "--gpu-api=opengl", "--gpu-context=x11egl",
         "--opengl-es=yes", "--geometry=320x240", "--frames=30",
         "av://lavfi:testsrc=size=320x240:rate=30"],
        ci=True),
    App("gtk4-demo-gears-wayland", "gtk-4-examples", "toolkit: no-config context, "
        "surfaceless first, window later", "wayland",
        ["/usr/bin/gtk4-demo", "--run=gears", "--autoquit"],
        env={"GDK_BACKEND": "wayland", "GDK_DEBUG": "gl-gles", "GSK_RENDERER": "gl"},
        ci=True),
    App("gtk4-demo-gears-x11", "gtk-4-examples", "toolkit on X11 EGL (GDK_DEBUG=gl-egl)", "x11",
        ["/usr/bin/gtk4-demo", "--run=gears", "--autoquit"],
        env={"GDK_BACKEND": "x11", "GDK_DEBUG": "gl-egl,gl-gles", "GSK_RENDERER": "gl"},
        ci=True),
    App("gtk4-demo-gears-glx", "gtk-4-examples", "toolkit on X11 as a user runs it: GLX",
        "x11", ["/usr/bin/gtk4-demo", "--run=gears", "--autoquit"],
        env={"GDK_BACKEND": "x11"},
        known="silent-failure + desktop-GL: GTK 4 renders through GLX on X11 by default; the "
              "trace holds its 75 EGL probing calls and 0 frames, and `gltrace trace` exits 0 "
              "without a word (cli + x11 fixes)"),
    App("qt6-qmlscene-glx", "qmlscene-qt6", "toolkit on X11 as a user runs it: xcb_glx", "x11",
        ["/usr/lib/qt6/bin/qmlscene", QML],
        env={"QT_QPA_PLATFORM": "xcb", "QSG_RHI_BACKEND": "opengl"},
        known="silent-failure + desktop-GL: Qt renders through GLX by default (xcb_glx); the "
              "trace holds 23 EGL calls and 0 frames, and `gltrace trace` exits 0 without a "
              "word (cli + x11 fixes)"),
    App("qt6-qmlscene-x11", "qmlscene-qt6", "toolkit: Qt Quick, render thread, desktop GL "
        "through EGL (xcb_egl)", "x11", ["/usr/lib/qt6/bin/qmlscene", QML],
        env={"QT_QPA_PLATFORM": "xcb", "QT_XCB_GL_INTEGRATION": "xcb_egl",
             "QSG_RHI_BACKEND": "opengl"},
        known="desktop-GL: Debian's Qt 6 binds EGL_OPENGL_API (GL 4.5 compatibility contexts); "
              "and resize: its contexts are first made current without a surface, so the "
              "window surface has no recorded size ('the trace holds no size for window "
              "surface') (x11 + egl fixes)"),
    App("qt6-qmlscene-wayland", "qmlscene-qt6", "toolkit: Qt Quick on Wayland, desktop GL "
        "through EGL", "wayland", ["/usr/lib/qt6/bin/qmlscene", QML],
        env={"QT_QPA_PLATFORM": "wayland", "QSG_RHI_BACKEND": "opengl"},
        known="desktop-GL (x11 fix); NEW: replay crashes (SIGSEGV in the driver) at "
              "glGetIntegeri_v(GL_MAX_COMPUTE_WORK_GROUP_COUNT): the trace has no size for its "
              "output (COMPSIZE not implemented) and replay passes a null pointer"),
]

COMPARE_RE = re.compile(r"compare: (\d+) frames identical, (\d+) differ, (\d+) without")


def clean_env(xdg):
    env = dict(os.environ)
    for name in ("LD_PRELOAD", "DEBUG_GLES_LAYERS", "GLTRACE_TRACE_FILE", "DISPLAY",
                 "WAYLAND_DISPLAY"):
        env.pop(name, None)
    env["XDG_RUNTIME_DIR"] = xdg
    return env


class Xvfb:
    """An Xvfb on a display number it picks itself (-displayfd), ended by its pid."""

    def __init__(self, env):
        read, write = os.pipe()
        self.proc = subprocess.Popen(["Xvfb", "-displayfd", str(write), "-screen", "0",
                                      "1280x1024x24", "-nolisten", "tcp"], pass_fds=(write,),
                                     env=env, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
        os.close(write)
        with os.fdopen(read) as f:
            number = f.readline().strip()
        if not number:
            self.close()
            raise RuntimeError("Xvfb did not start")
        self.display = ":" + number

    def close(self):
        self.proc.terminate()
        self.proc.wait()


def wait_for_socket(path, proc, seconds=20):
    end = time.monotonic() + seconds
    while time.monotonic() < end and proc.poll() is None:
        if os.path.exists(path):
            return True
        time.sleep(0.1)
    return False


class Weston:
    """A headless weston with the GL renderer on its own socket."""

    def __init__(self, env, xdg, name):
        self.socket = name
        self.proc = subprocess.Popen(["weston", "--backend=headless-backend.so", "--use-gl",
                                      f"--socket={name}", "--width=640", "--height=480"],
                                     env=env, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
        if not wait_for_socket(os.path.join(xdg, name), self.proc):
            self.close()
            raise RuntimeError("weston did not start")

    def close(self):
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def run_traced(app, gltrace, trace, env, log):
    """Runs the program under `gltrace trace`; returns (exit status, note)."""
    cmd = [gltrace, "trace", "--framebuffer", "swap", "-o", trace, "--"] + app.argv
    with open(log, "w") as out:
        proc = subprocess.Popen(cmd, env=env, cwd=app.cwd, stdout=out, stderr=subprocess.STDOUT)
        # gltrace trace execs the program: signals reach it directly.
        stopped = False
        try:
            proc.wait(app.run_for if app.run_for > 0 else 120)
        except subprocess.TimeoutExpired:
            if app.run_for <= 0:
                proc.kill()
                proc.wait()
                return None, "did not finish in 120 s"
            proc.send_signal(app.stop_signal)
            stopped = True
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
                return None, f"did not stop within 20 s of {signal.Signals(app.stop_signal).name}"
    if stopped:
        return 0, f"stopped by {signal.Signals(app.stop_signal).name}"
    return proc.returncode, ""


def run_compositor(app, gltrace, trace, env, xdg, log):
    """Traces weston itself while two clients (shm and EGL) draw into it."""
    name = f"gltrace-ra-{os.getpid()}"
    cmd = [gltrace, "trace", "--framebuffer", "swap", "-o", trace, "--"] + app.argv + \
        [f"--socket={name}"]
    with open(log, "w") as out:
        proc = subprocess.Popen(cmd, env=env, stdout=out, stderr=subprocess.STDOUT)
        try:
            if not wait_for_socket(os.path.join(xdg, name), proc):
                return None, "weston did not start"
            client_env = dict(env, WAYLAND_DISPLAY=name)
            for client in ("/usr/bin/weston-simple-shm", "/usr/bin/weston-simple-egl"):
                c = subprocess.Popen([client], env=client_env, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
                try:
                    c.wait(1.5)
                except subprocess.TimeoutExpired:
                    c.send_signal(signal.SIGINT)
                    try:
                        c.wait(10)
                    except subprocess.TimeoutExpired:
                        c.kill()
                        c.wait()
            proc.send_signal(app.stop_signal)
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            return None, "weston did not stop within 20 s of SIGTERM"
    return 0, "stopped by SIGTERM"


def info_fields(text):
    fields = {}
    for line in text.splitlines():
        m = re.match(r"^(calls|frames|images|complete):\s+(.*)$", line)
        if m:
            fields[m.group(1)] = m.group(2)
    return fields


def survey(app, build, work, xdg, servers):
    """Traces and replays one program; returns its result row."""
    gltrace = os.path.join(build, "bin", "gltrace")
    row = {"app": app.name, "package": app.package, "calls": "-", "frames": "-",
           "identical": "-", "verdict": "SKIP", "details": []}
    if not os.access(app.argv[0], os.X_OK):
        row["details"].append(f"{app.argv[0]} not installed (Debian package {app.package})")
        return row
    env = clean_env(xdg)
    env.update(app.env)
    trace = os.path.join(work, app.name + ".gltrace")
    log = os.path.join(work, app.name + ".log")
    if os.path.exists(trace):
        os.unlink(trace)
    if app.platform == "x11":
        env["DISPLAY"] = servers.x11(env).display
    elif app.platform == "wayland":
        env["WAYLAND_DISPLAY"] = servers.wayland(env).socket
    if app.platform == "compositor":
        status, note = run_compositor(app, gltrace, trace, env, xdg, log)
    else:
        status, note = run_traced(app, gltrace, trace, env, log)
    problems = []
    if status is None or status != 0:
        problems.append(f"the traced program failed ({note or f'exit status {status}'}); "
                        f"its output: {log}")

    info = subprocess.run([gltrace, "info", trace], capture_output=True, text=True)
    if info.returncode != 0:
        problems.append("trace unreadable: " + (info.stderr.strip() or info.stdout.strip()))
    fields = info_fields(info.stdout)
    row["calls"] = fields.get("calls", "-")
    frames = fields.get("frames", "-").split()[0]
    row["frames"] = frames
    if fields.get("complete", "").startswith("no"):
        # Programs that die of the stop signal (eglut) leave no index; the
        # trace still reads to its last complete chunk.
        row["details"].append(f"trace complete: {fields['complete']} ({note})")

    # Headless: no DISPLAY, no WAYLAND_DISPLAY.
    try:
        replay = subprocess.run([gltrace, "replay", "-n", "--compare", trace],
                                env=clean_env(xdg), capture_output=True, text=True, timeout=300)
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes) else ""
        replay = subprocess.CompletedProcess(e.cmd, 124, out, "replay: did not finish in 300 s")
    m = COMPARE_RE.search(replay.stdout)
    identical = int(m.group(1)) if m else 0
    row["identical"] = f"{identical}/{frames}"
    if replay.returncode != 0 or not m or str(identical) != frames or frames == "0":
        lines = [line for line in (replay.stderr + replay.stdout).splitlines()
                 if not line.startswith("replayed ")]
        status = (f"killed by {signal.Signals(-replay.returncode).name}"
                  if replay.returncode < 0 else f"exit status {replay.returncode}")
        problems.append(f"replay {status}; it printed:")
        problems += ["  " + line for line in lines[:6]]
        if len(lines) > 6:
            problems.append(f"  ... {len(lines) - 6} more lines")

    if problems:
        row["verdict"] = "XFAIL" if app.known else "FAIL"
        if app.known:
            row["details"].append("known: " + app.known)
        row["details"] += problems
    else:
        row["verdict"] = "XPASS" if app.known else "PASS"
        if app.known:
            row["details"].append("known failure no longer happens: " + app.known)
    return row


class Servers:
    """The Xvfb and the weston the programs need, started on first use."""

    def __init__(self, xdg):
        self.xdg = xdg
        self._x11 = None
        self._wayland = None

    def x11(self, env):
        if self._x11 is None:
            self._x11 = Xvfb(env)
        return self._x11

    def wayland(self, env):
        if self._wayland is None:
            self._wayland = Weston(env, self.xdg, f"gltrace-ra-w{os.getpid()}")
        return self._wayland

    def close(self):
        for server in (self._x11, self._wayland):
            if server is not None:
                server.close()


def print_table(rows):
    header = ("app", "package", "calls", "frames", "identical/total", "verdict")
    table = [header] + [(r["app"], r["package"], r["calls"], r["frames"], r["identical"],
                         r["verdict"]) for r in rows]
    widths = [max(len(str(t[i])) for t in table) for i in range(len(header))]
    for t in table:
        print("  ".join(str(v).ljust(w) for v, w in zip(t, widths)).rstrip())
    for r in rows:
        if r["details"]:
            print(f"\n{r['app']}:")
            for line in r["details"]:
                print("  " + line)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("build")
    ap.add_argument("work")
    ap.add_argument("--set", choices=("ci", "all"), default="all",
                    help="ci: the required programs only (about a minute); all: every program")
    ap.add_argument("--only", nargs="+", metavar="NAME", help="these programs only")
    ap.add_argument("--strict", action="store_true", help="known failures count as failures")
    ap.add_argument("--list", action="store_true", help="list the programs and exit")
    args = ap.parse_args()

    apps = [a for a in APPS if args.set == "all" or a.ci]
    if args.only:
        unknown = set(args.only) - {a.name for a in APPS}
        if unknown:
            ap.error("unknown program(s): " + ", ".join(sorted(unknown)))
        apps = [a for a in APPS if a.name in args.only]
    if args.list:
        for a in apps:
            print(f"{a.name:26} {a.package:18} {'ci' if a.ci else '  '} {a.how}"
                  + (f"  [known: {a.known}]" if a.known else ""))
        return 0

    build = os.path.abspath(args.build)
    if not os.access(os.path.join(build, "bin", "gltrace"), os.X_OK):
        print(f"real_apps.py: no gltrace in {build}/bin (build first)", file=sys.stderr)
        return 2
    work = os.path.abspath(args.work)
    os.makedirs(work, exist_ok=True)
    xdg = tempfile.mkdtemp(prefix="gltrace-ra-xdg-")
    servers = Servers(xdg)
    rows = []
    try:
        for app in apps:
            rows.append(survey(app, build, work, xdg, servers))
    finally:
        servers.close()
        shutil.rmtree(xdg, ignore_errors=True)

    print_table(rows)
    count = {v: sum(1 for r in rows if r["verdict"] == v)
             for v in ("PASS", "FAIL", "XFAIL", "XPASS", "SKIP")}
    failed = count["FAIL"] + (count["XFAIL"] if args.strict else 0)
    passed = count["PASS"] + count["XPASS"]
    print(f"\n{passed} passed, {failed} failed, {count['SKIP']} skipped"
          f" ({count['XFAIL']} known failures, {count['XPASS']} known failures now pass)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
