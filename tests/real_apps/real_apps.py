#!/usr/bin/env python3
"""Real Debian programs that use EGL + GLES in different ways (a classic
benchmark, Wayland clients and a compositor, toolkit loaders, a media
pipeline), each traced with `gltrace trace --framebuffer swap` and replayed
headless with `gltrace replay -n --compare`: every frame must be identical.

  real_apps.py BUILD_DIR WORK_DIR [--set ci|all] [--only NAME...] [--strict] [--list]
  real_apps.py BUILD_DIR WORK_DIR --attach K [--capture-frames N] [--seed S] [--set ...]
  real_apps.py BUILD_DIR WORK_DIR --attach K --flight [--capture-frames N] [...]

Prints one row per program: calls, frames, identical/total and the verdict,
and for every program that is not identical the first lines replay printed
about it. Verdicts: PASS, FAIL (a frame differs, a call could not be replayed,
a trace is unreadable or the program failed), XFAIL (fails for a known reason
that another fix addresses; the reason is printed), XPASS (a known failure now
passes: make it a required one), SKIP (program not installed).
Exits 1 if any required program FAILs (with --strict, XFAIL counts as FAIL),
0 otherwise; when nothing ran at all it says "0 passed, 0 failed, N skipped".

With --attach K each program (and two of gltrace's own) runs untraced under
`gltrace run --traceable`, long enough for K live captures: after a random
pause (--seed makes the pauses repeatable) `gltrace attach --frames N
--framebuffer swap` captures N frames mid-run, each beginning with a snapshot
of the state, and `gltrace replay -n --compare` must replay every captured
frame identically. One row per capture: the app frame it began at, its calls,
its snapshot calls, the objects the snapshot could not restore exactly, and
identical/total frames. A capture PASSes when every frame with an image is
identical and no call was left unreplayed.

With --flight the programs run under `gltrace run --flight-recorder N` instead
(recording into memory all the time, a snapshot every round), and each
capture is `gltrace flight PID`: the last N or more frames, which must replay
the same way.
"""

import argparse
import dataclasses
import os
import random
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
    # --attach: the program must run until it is stopped, so programs that end
    # by themselves get an argv that does not ("{build}", "{work}" replaced).
    attach_argv: list = None


def glmark2_scenes(scenes, duration):
    return [a for s in scenes for a in ("-b", f"{s}:duration={duration}")]


# --attach: glmark2 loops its scenes until stopped, each a few seconds long so
# that a capture's frames mostly fall in one scene.
GLMARK2_ATTACH = ["--run-forever"]
GLMARK2_ATTACH_SECONDS = 2

GST_X11 = {"GST_GL_API": "gles2", "GST_GL_PLATFORM": "egl", "GST_GL_WINDOW": "x11"}
SDL_EGL = {"SDL_VIDEO_X11_FORCE_EGL": "1", "SDL_OPENGL_ES_DRIVER": "1"}
# SDL's desktop GL on X11 through EGL rather than GLX.
SDL_DESKTOP_GL = {"SDL_VIDEO_X11_FORCE_EGL": "1"}
GTK4_GEARS = ["/usr/bin/gtk4-demo", "--run=gears"]  # --attach: no --autoquit
# --attach: spin.qml without its quit timer (written to WORK_DIR).
QML_FOREVER = "{work}/spin-forever.qml"

APPS = [
    App("glmark2-13-scenes", "glmark2-es2-x11", "dlopen + glad, a context per scene", "x11",
        ["/usr/bin/glmark2-es2", "-s", "320x240"] +
        glmark2_scenes(GLMARK2_SCENES, 0.3), ci=True,
        attach_argv=["/usr/bin/glmark2-es2", "-s", "320x240"] + GLMARK2_ATTACH +
        glmark2_scenes(GLMARK2_SCENES, GLMARK2_ATTACH_SECONDS)),
    App("glmark2-wayland-desktop-gl", "glmark2-wayland", "desktop GL 2.1 through EGL, every "
        "scene", "wayland", ["/usr/bin/glmark2-wayland", "-s", "320x240"] +
        glmark2_scenes(GLMARK2_SCENES, 0.3),
        attach_argv=["/usr/bin/glmark2-wayland", "-s", "320x240"] + GLMARK2_ATTACH +
        glmark2_scenes(GLMARK2_SCENES, GLMARK2_ATTACH_SECONDS)),
    App("glmark2-off-screen", "glmark2-es2-x11", "FBO only, no eglSwapBuffers", "x11",
        ["/usr/bin/glmark2-es2", "--off-screen", "-s", "320x240", "-b", "shading:duration=0.5",
         "-b", "texture:duration=0.5"],
        ci=True,
        attach_argv=["/usr/bin/glmark2-es2", "--off-screen", "-s", "320x240"] + GLMARK2_ATTACH +
        glmark2_scenes(("shading", "texture"), GLMARK2_ATTACH_SECONDS)),
    App("weston-simple-egl", "weston", "Wayland client, wl_egl_window", "wayland",
        ["/usr/bin/weston-simple-egl"], run_for=2.0, ci=True),
    App("weston-simple-egl-16bpp", "weston", "Wayland client, RGB565 config", "wayland",
        ["/usr/bin/weston-simple-egl", "-s", "-o", "-b"], run_for=1.5),
    App("weston-subsurfaces", "weston", "Wayland client: an EGL subsurface over an shm one",
        "wayland", ["/usr/bin/weston-subsurfaces"], run_for=1.5),
    App("weston-compositor", "weston", "compositor: gl-renderer, surfaceless, pbuffer",
        "compositor", ["/usr/bin/weston", "--backend=headless-backend.so", "--use-gl",
                       "--width=320", "--height=240"], stop_signal=signal.SIGTERM, ci=True),
    App("es2gears-wayland", "mesa-utils-bin", "Wayland client (eglut)", "wayland",
        ["/usr/bin/es2gears_wayland.x86_64-linux-gnu"], run_for=2.0, stop_signal=signal.SIGTERM),
    App("es2gears-x11", "mesa-utils-bin", "X11 window (eglut), 1-bit colour config", "x11",
        ["/usr/bin/es2gears_x11.x86_64-linux-gnu"], run_for=1.0, stop_signal=signal.SIGTERM),
    App("sdl2-testgles2", "libsdl2-tests", "SDL2 loader: dlopen + eglGetProcAddress", "x11",
        [f"{SDL_TESTS}/testgles2", "--geometry", "320x240"], env=SDL_EGL, run_for=2.0, ci=True),
    App("sdl2-testsprite2", "libsdl2-tests", "SDL2 renderer on GLES2 (batched 2D)", "x11",
        [f"{SDL_TESTS}/testsprite2", "--renderer", "opengles2", "--geometry", "320x240", "20"],
        env=SDL_EGL, run_for=1.5, cwd=SDL_TESTS, ci=True),
    App("sdl2-testgl2", "libsdl2-tests", "SDL2 desktop GL through EGL: immediate mode, "
        "fixed-function state", "x11", [f"{SDL_TESTS}/testgl2", "--geometry", "320x240"],
        env=SDL_DESKTOP_GL, run_for=1.5),
    App("sdl2-testsprite2-gl", "libsdl2-tests", "SDL2's default renderer (desktop GL through "
        "EGL): client arrays, ARB shader objects", "x11",
        [f"{SDL_TESTS}/testsprite2", "--renderer", "opengl", "--geometry", "320x240", "20"],
        env=SDL_DESKTOP_GL, run_for=1.5, cwd=SDL_TESTS, ci=True),
    App("sdl2-testshader", "libsdl2-tests", "SDL2 desktop GL through EGL: GLSL through "
        "ARB_shader_objects", "x11", [f"{SDL_TESTS}/testshader"], env=SDL_DESKTOP_GL,
        run_for=1.5, cwd=SDL_TESTS),
    App("sdl2-testrendertarget", "libsdl2-tests", "SDL2 renderer on GLES2: render targets "
        "(FBOs)", "x11", [f"{SDL_TESTS}/testrendertarget", "--renderer", "opengles2",
                          "--geometry", "320x240"], env=SDL_EGL, run_for=1.5, cwd=SDL_TESTS),
    App("sdl2-teststreaming", "libsdl2-tests", "SDL2 renderer on GLES2: a streaming texture "
        "rewritten every frame", "x11", [f"{SDL_TESTS}/teststreaming"],
        env={**SDL_EGL, "SDL_RENDER_DRIVER": "opengles2"}, run_for=1.5, cwd=SDL_TESTS),
    App("sdl2-testyuv-nv12", "libsdl2-tests", "SDL2 renderer on GLES2: NV12 textures, YUV "
        "shaders", "x11", [f"{SDL_TESTS}/testyuv", "--nv12"],
        env={**SDL_EGL, "SDL_RENDER_DRIVER": "opengles2"}, run_for=1.5, cwd=SDL_TESTS),
    App("gst-glimagesink", "gstreamer1.0-gl", "media pipeline: GL thread, X11 window", "x11",
        ["/usr/bin/gst-launch-1.0", "gltestsrc", "num-buffers=40", "!",
         "video/x-raw(memory:GLMemory),width=320,height=240", "!", "glimagesink"], env=GST_X11,
        ci=True,
        attach_argv=["/usr/bin/gst-launch-1.0", "gltestsrc", "!",
                     "video/x-raw(memory:GLMemory),width=320,height=240", "!", "glimagesink"]),
    App("gst-gleffects-download", "gstreamer1.0-gl", "media pipeline, off-screen: FBO + "
        "glReadPixels into a PBO", "x11",
        ["/usr/bin/gst-launch-1.0", "videotestsrc", "num-buffers=30", "!",
         "video/x-raw,width=320,height=240", "!", "glupload", "!", "gleffects", "effect=twirl",
         "!", "gldownload", "!", "filesink", "location=/dev/null"], env=GST_X11, ci=True,
        # is-live: paced at 30 buffers/s, not as fast as the CPUs go, so a
        # capture that never sees a frame end (--duration) stays small.
        attach_argv=["/usr/bin/gst-launch-1.0", "videotestsrc", "is-live=true", "!",
                     "video/x-raw,width=320,height=240", "!", "glupload", "!", "gleffects",
                     "effect=twirl", "!", "gldownload", "!", "filesink", "location=/dev/null"]),
    App("mpv", "mpv", "video player: VO thread, x11egl, window resized after creation", "x11",
        ["/usr/bin/mpv", "--no-config", "--vo=gpu", "--gpu-api=opengl", "--gpu-context=x11egl",
         "--opengl-es=yes", "--geometry=320x240", "--frames=30",
         "av://lavfi:testsrc=size=320x240:rate=30"],
        ci=True,
        attach_argv=["/usr/bin/mpv", "--no-config", "--vo=gpu", "--gpu-api=opengl",
                     "--gpu-context=x11egl", "--opengl-es=yes", "--geometry=320x240",
                     "av://lavfi:testsrc=size=320x240:rate=30"]),
    App("mpv-x11egl-desktop-gl", "mpv", "video player: desktop GL through x11egl", "x11",
        ["/usr/bin/mpv", "--no-config", "--vo=gpu", "--gpu-api=opengl", "--gpu-context=x11egl",
         "--geometry=320x240", "--frames=30", "av://lavfi:testsrc=size=320x240:rate=30"],
        attach_argv=["/usr/bin/mpv", "--no-config", "--vo=gpu", "--gpu-api=opengl",
                     "--gpu-context=x11egl", "--geometry=320x240",
                     "av://lavfi:testsrc=size=320x240:rate=30"]),
    App("mpv-default", "mpv", "video player as a user runs it: --vo=gpu's default context "
        "(--gpu-sw: llvmpipe is a software renderer, which mpv refuses otherwise)",
        "x11", ["/usr/bin/mpv", "--no-config", "--vo=gpu", "--gpu-sw", "--geometry=320x240",
                "--frames=30", "av://lavfi:testsrc=size=320x240:rate=30"]),
    App("gtk4-demo-gears-wayland", "gtk-4-examples", "toolkit: no-config context, "
        "surfaceless first, window later", "wayland",
        ["/usr/bin/gtk4-demo", "--run=gears", "--autoquit"],
        env={"GDK_BACKEND": "wayland", "GDK_DEBUG": "gl-gles", "GSK_RENDERER": "gl"},
        ci=True, attach_argv=GTK4_GEARS),
    App("gtk4-demo-gears-wayland-default", "gtk-4-examples", "toolkit on Wayland as a user "
        "runs it: desktop GL through EGL", "wayland",
        ["/usr/bin/gtk4-demo", "--run=gears", "--autoquit"], env={"GDK_BACKEND": "wayland"},
        attach_argv=GTK4_GEARS),
    App("gtk4-demo-gears-x11", "gtk-4-examples", "toolkit on X11 EGL (GDK_DEBUG=gl-egl)", "x11",
        ["/usr/bin/gtk4-demo", "--run=gears", "--autoquit"],
        env={"GDK_BACKEND": "x11", "GDK_DEBUG": "gl-egl,gl-gles", "GSK_RENDERER": "gl"},
        ci=True, attach_argv=GTK4_GEARS),
    App("gtk4-demo-gears-glx", "gtk-4-examples", "toolkit on X11 as a user runs it: probes "
        "EGL, calls eglTerminate, renders with GLX", "x11",
        ["/usr/bin/gtk4-demo", "--run=gears", "--autoquit"], env={"GDK_BACKEND": "x11"},
        attach_argv=GTK4_GEARS),
    App("qt6-qmlscene-glx", "qmlscene-qt6", "toolkit on X11 as a user runs it: xcb_glx, "
        "render thread", "x11", ["/usr/lib/qt6/bin/qmlscene", QML],
        env={"QT_QPA_PLATFORM": "xcb", "QSG_RHI_BACKEND": "opengl"}, ci=True,
        attach_argv=["/usr/lib/qt6/bin/qmlscene", QML_FOREVER]),
    App("glxgears", "mesa-utils", "GLX 1.3 classic: glXChooseVisual, display lists, "
        "immediate mode", "x11", ["/usr/bin/glxgears", "-geometry", "320x240"], run_for=1.0,
        stop_signal=signal.SIGTERM, ci=True),
    App("glmark2-x11-glx", "glmark2-x11", "glmark2's GLX build (desktop GL 2.1): "
        "glXCreateContextAttribsARB, every scene", "x11",
        ["/usr/bin/glmark2", "-s", "320x240"] + glmark2_scenes(GLMARK2_SCENES, 0.3),
        attach_argv=["/usr/bin/glmark2", "-s", "320x240"] + GLMARK2_ATTACH +
        glmark2_scenes(GLMARK2_SCENES, GLMARK2_ATTACH_SECONDS)),
    App("sdl2-testgl2-glx", "libsdl2-tests", "SDL2 as a user runs it: GLX, immediate mode, "
        "fixed-function state", "x11", [f"{SDL_TESTS}/testgl2", "--geometry", "320x240"],
        run_for=1.5),
    App("sdl2-testsprite2-glx", "libsdl2-tests", "SDL2's default renderer as a user runs it: "
        "GLX, client arrays", "x11",
        [f"{SDL_TESTS}/testsprite2", "--geometry", "320x240", "20"], run_for=1.5, cwd=SDL_TESTS),
    App("qt6-qmlscene-x11", "qmlscene-qt6", "toolkit: Qt Quick, render thread, desktop GL "
        "through EGL (xcb_egl)", "x11", ["/usr/lib/qt6/bin/qmlscene", QML],
        attach_argv=["/usr/lib/qt6/bin/qmlscene", QML_FOREVER],
        env={"QT_QPA_PLATFORM": "xcb", "QT_XCB_GL_INTEGRATION": "xcb_egl",
             "QSG_RHI_BACKEND": "opengl"}, ci=True),
    App("qt6-qmlscene-wayland", "qmlscene-qt6", "toolkit: Qt Quick on Wayland, desktop GL "
        "through EGL", "wayland", ["/usr/lib/qt6/bin/qmlscene", QML],
        attach_argv=["/usr/lib/qt6/bin/qmlscene", QML_FOREVER],
        env={"QT_QPA_PLATFORM": "wayland", "QSG_RHI_BACKEND": "opengl"}),
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

    def __init__(self, env, xdg, name, args=()):
        self.socket = name
        self.proc = subprocess.Popen(["weston", "--backend=headless-backend.so", "--use-gl",
                                      f"--socket={name}", "--width=640", "--height=480"] +
                                     list(args), env=env, stdout=subprocess.DEVNULL,
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


def replay_compare(gltrace, trace, xdg):
    """`gltrace replay -n --compare` headless (no DISPLAY, no WAYLAND_DISPLAY),
    at most 300 s; a replay that runs longer is status 124."""
    try:
        return subprocess.run([gltrace, "replay", "-n", "--compare", trace],
                              env=clean_env(xdg), capture_output=True, text=True, timeout=300)
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes) else ""
        return subprocess.CompletedProcess(e.cmd, 124, out, "replay: did not finish in 300 s")


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

    replay = replay_compare(gltrace, trace, xdg)
    m = COMPARE_RE.search(replay.stdout)
    identical = int(m.group(1)) if m else 0
    row["identical"] = f"{identical}/{frames}"
    # A program stopped by a signal (run_for) that it does not catch dies with
    # its last frame's read-back in flight: that frame has no image to compare.
    in_flight = (1 if app.run_for > 0 and m and int(m.group(2)) == 0 and int(m.group(3)) == 1
                 and str(identical + 1) == frames else 0)
    if in_flight:
        row["details"].append("the last frame's image was in flight when the program was "
                              "stopped (it dies of the signal)")
    if replay.returncode != 0 or not m or str(identical + in_flight) != frames or frames == "0":
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

    def __init__(self, xdg, weston_args=()):
        self.xdg = xdg
        self.weston_args = weston_args
        self._x11 = None
        self._wayland = None

    def x11(self, env):
        if self._x11 is None:
            self._x11 = Xvfb(env)
        return self._x11

    def wayland(self, env):
        if self._wayland is None:
            self._wayland = Weston(env, self.xdg, f"gltrace-ra-w{os.getpid()}",
                                   self.weston_args)
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


# --attach also captures two of gltrace's own programs: they never end by
# themselves and need no display server, and two threads drawing at once
# start a capture with a snapshot each.
BUNDLED_APPS = [
    App("gltrace-demo", "gltrace", "bundled: one context on a pbuffer", "surfaceless",
        ["{build}/bin/gltrace-demo", "--frames", "100000", "--fps", "60"],
        stop_signal=signal.SIGTERM, ci=True),
    App("gltrace-two-threads", "gltrace", "bundled: two threads, a context each", "surfaceless",
        ["{build}/bin/gltrace-two-threads", "--frames", "100000", "--fps", "50"],
        stop_signal=signal.SIGTERM, ci=True),
]

ATTACH_COMPARE_RE = re.compile(r"compare: (\d+) frames identical, (\d+) differ, (\d+) without "
                               r"a trace image, (\d+) not replayed")
FROM_FRAME_RE = re.compile(r"gltrace attach: tracing .* from app frame (\d+) to ")
WROTE_RE = re.compile(r"gltrace attach: wrote \d+ calls, (\d+) frames")
# The app says this on its stderr when a thread joins a capture.
SNAPSHOT_LOG_RE = re.compile(r"thread \d+: a snapshot of (\d+) calls \((\d+) objects not exact\)")
# gltrace dump marks every call a snapshot made (EGL ones included).
SNAPSHOT_CALL_RE = re.compile(r"^\d+ .*  // snapshot: recreates what the app had")
PS_ROW = r"^{pid}\s+.*?\s(idle|tracing|finishing)\s+\S+\s+(\d+)\s"
# weston goes idle after 300 s without input and stops repainting: its
# clients then wait for frame callbacks forever (Qt stays at app frame 1).
# An --attach run takes longer than that.
WESTON_ATTACH_ARGS = ["--idle-time=0"]
ATTACH_DURATION = 20   # s: a capture of a program that never ends a frame still stops
FIRST_FRAMES = 3       # app frames drawn before the first capture: it is in its frame loop
CRASH_SIGNALS = (signal.SIGSEGV, signal.SIGABRT, signal.SIGBUS, signal.SIGILL, signal.SIGFPE)


@dataclasses.dataclass
class Capture:
    """One live capture and its replay: a row of the --attach table. Index 0 is
    the program's own row, for what happened outside the captures."""
    app: App
    index: int
    from_frame: str = "-"
    calls: str = "-"
    snapshot_calls: str = "-"
    not_exact: str = "-"
    identical: str = "-"
    verdict: str = "SKIP"
    details: list = dataclasses.field(default_factory=list)

    def judge(self, problems):
        """The verdict from the problems found; a known failure is XFAIL."""
        if problems:
            self.verdict = "XFAIL" if self.app.known else "FAIL"
            if self.app.known:
                self.details.append("known: " + self.app.known)
            self.details.extend(problems)
        else:
            self.verdict = "XPASS" if self.app.known else "PASS"


def attach_argv(app, build, work):
    argv = app.attach_argv or app.argv
    return [a.replace("{build}", build).replace("{work}", work) for a in argv]


def write_forever_qml(work):
    """spin.qml without the Timer that quits it after 1.5 s (the traced mode's
    run), so a capture finds qmlscene still drawing."""
    with open(QML) as f:
        text = f.read()
    forever = re.sub(r"^\s*Timer \{.*Qt\.quit\(\) \}\n", "", text, flags=re.M)
    assert forever != text, "spin.qml has no quit Timer to drop"
    with open(QML_FOREVER.replace("{work}", work), "w") as f:
        f.write(forever)


def ps_row(gltrace, env, pid):
    """(state, app frames) of the traceable process pid, or None when `gltrace ps`
    does not list it (yet)."""
    ps = subprocess.run([gltrace, "ps"], env=env, capture_output=True, text=True, timeout=60)
    m = re.search(PS_ROW.format(pid=pid), ps.stdout, re.M)
    return (m.group(1), int(m.group(2))) if m else None


def wait_for_ps(gltrace, env, proc, ready, seconds):
    """Polls `gltrace ps` until ready(state, frames) or seconds pass; returns
    True, or the last row `gltrace ps` had for it (None: not listed), also when
    the program ended meanwhile."""
    end = time.monotonic() + seconds
    row = None
    while time.monotonic() < end and proc.poll() is None:
        row = ps_row(gltrace, env, proc.pid)
        if row and ready(*row):
            return True
        time.sleep(0.1)
    return row


class Traceable:
    """A program started with `gltrace run --traceable` (which execs it: its pid
    is the program's, and signals reach it directly), and for the compositor the
    client that keeps it repainting."""

    def __init__(self, app, argv, gltrace, env, xdg, log, flight_frames=None, flight_dir=None):
        self.app = app
        self.log = log
        self.clients = []
        if flight_frames:
            cmd = [gltrace, "run", "--flight-recorder", str(flight_frames), "-o", flight_dir, "--"]
            env = dict(env, GLTRACE_CAPTURE_FRAMEBUFFER="swap")
        else:
            cmd = [gltrace, "run", "--traceable", "--"]
        cmd += argv
        socket = None
        if app.platform == "compositor":
            socket = f"gltrace-ra-c{os.getpid()}"
            cmd += [f"--socket={socket}"] + WESTON_ATTACH_ARGS
        with open(log, "w") as out:
            self.proc = subprocess.Popen(cmd, env=env, cwd=app.cwd, stdout=out,
                                         stderr=subprocess.STDOUT)
        self.problem = None
        if socket:
            if not wait_for_socket(os.path.join(xdg, socket), self.proc):
                self.problem = "weston did not start"
                return
            # weston repaints only on damage: an EGL client that animates
            # until stopped gives it a frame every refresh.
            self.clients.append(subprocess.Popen(
                ["/usr/bin/weston-simple-egl"], env=dict(env, WAYLAND_DISPLAY=socket),
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))

    def log_size(self):
        return os.path.getsize(self.log)

    def log_since(self, offset):
        with open(self.log, errors="replace") as f:
            f.seek(offset)
            return f.read()

    def ended(self):
        """Why the program is no longer running, or None while it is."""
        status = self.proc.poll()
        if status is None:
            return None
        if status < 0:
            return f"it died of {signal.Signals(-status).name}"
        return f"it exited with status {status}"

    def stop(self):
        """Stops the clients and the program and reaps them; returns a problem or None."""
        for c in self.clients:
            c.send_signal(signal.SIGINT)
        for c in self.clients:
            try:
                c.wait(10)
            except subprocess.TimeoutExpired:
                c.kill()
                c.wait()
        ended = self.ended()
        if ended:
            return f"the program ended before it was stopped: {ended}; its output: {self.log}"
        name = signal.Signals(self.app.stop_signal).name
        self.proc.send_signal(self.app.stop_signal)
        try:
            status = self.proc.wait(20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            return f"it did not stop within 20 s of {name}"
        # Dying of the stop signal is how some programs (eglut) end.
        if status < 0 and -status in CRASH_SIGNALS:
            return f"on {name} it died of {signal.Signals(-status).name}; its output: {self.log}"
        return None


def attach_once(cap, running, gltrace, env, trace, frames):
    """Captures frames frames from the running program into trace; returns the
    problems, the app's output meanwhile (its snapshot lines) and the frames
    the attach says it wrote (None if it did not say)."""
    offset = running.log_size()
    if os.path.exists(trace):
        os.unlink(trace)
    cmd = [gltrace, "attach", "-o", trace, "--frames", str(frames), "--framebuffer", "swap",
           "--duration", str(ATTACH_DURATION), "--quiet", str(running.proc.pid)]
    try:
        attach = subprocess.run(cmd, env=env, capture_output=True, text=True,
                                timeout=ATTACH_DURATION + 120)
    except subprocess.TimeoutExpired:
        return [f"gltrace attach did not finish in {ATTACH_DURATION + 120} s"], "", None
    m = FROM_FRAME_RE.search(attach.stderr)
    if m:
        cap.from_frame = m.group(1)
    m = WROTE_RE.search(attach.stderr + attach.stdout)
    frames_written = int(m.group(1)) if m else None
    problems = []
    if attach.returncode != 0:
        problems.append(f"gltrace attach: exit status {attach.returncode}; it printed:")
        problems += ["  " + line for line in (attach.stderr + attach.stdout).splitlines()[:6]]
    # The app prints its snapshot lines as its threads join, before the
    # attach has its frames; a moment more for a slow writer of stderr.
    time.sleep(0.2)
    return problems, running.log_since(offset), frames_written


FLIGHT_TRACE_RE = re.compile(r"flight trace: (\S+)")


def flight_once(running, gltrace, env, trace):
    """--flight: asks the running program for its last frames, into trace;
    returns the problems and the app's output meanwhile."""
    offset = running.log_size()
    ask = subprocess.run([gltrace, "flight", str(running.proc.pid)], env=env, capture_output=True,
                         text=True, timeout=120)
    m = FLIGHT_TRACE_RE.search(ask.stdout)
    if ask.returncode != 0 or not m:
        return ([f"gltrace flight: exit status {ask.returncode}; it printed:"] +
                ["  " + line for line in (ask.stderr + ask.stdout).splitlines()[:6]]), ""
    shutil.move(m.group(1), trace)
    time.sleep(0.2)
    return [], running.log_since(offset)


def count_snapshot_calls(gltrace, trace):
    with subprocess.Popen([gltrace, "dump", trace], stdout=subprocess.PIPE,
                          stderr=subprocess.DEVNULL, text=True, errors="replace") as dump:
        count = sum(1 for line in dump.stdout if SNAPSHOT_CALL_RE.match(line))
    return str(count) if dump.returncode == 0 else "-"


def check_capture(cap, gltrace, xdg, trace, app_output):
    """Reads the capture back and replays it; returns the problems."""
    problems = []
    snapshots = SNAPSHOT_LOG_RE.findall(app_output)
    if snapshots:
        cap.not_exact = str(sum(int(n) for _, n in snapshots))
    app_lines = [line for line in app_output.splitlines() if line.startswith("gltrace:")
                 and ("not exact" in line or "snapshot" in line or "warning" in line
                      or "error" in line)]
    info = subprocess.run([gltrace, "info", trace], capture_output=True, text=True, timeout=300)
    if info.returncode != 0:
        return ["trace unreadable: " + (info.stderr.strip() or info.stdout.strip())]
    fields = info_fields(info.stdout)
    cap.calls = fields.get("calls", "-")
    frames = fields.get("frames", "0").split()[0]
    cap.snapshot_calls = count_snapshot_calls(gltrace, trace)
    if frames == "0":
        cap.identical = "0/0"
        return ["no frame captured"] + ["  app: " + line for line in app_lines[:4]]

    replay = replay_compare(gltrace, trace, xdg)
    m = ATTACH_COMPARE_RE.search(replay.stdout)
    identical, differ, _, not_replayed = (int(g) for g in m.groups()) if m else (0, 0, 0, 0)
    cap.identical = f"{identical}/{frames}"
    if replay.returncode != 0 or not m or differ or not_replayed:
        lines = [line for line in (replay.stderr + replay.stdout).splitlines()
                 if not line.startswith("replayed ")]
        status = (f"killed by {signal.Signals(-replay.returncode).name}"
                  if replay.returncode < 0 else f"exit status {replay.returncode}")
        # Its compare line first: the per-frame lines before it are many.
        problems.append(f"replay {status}" + (f" ({m.group(0)})" if m else "") +
                        "; it printed:")
        problems += ["  " + line for line in lines[:6]]
        if len(lines) > 6:
            problems.append(f"  ... {len(lines) - 6} more lines")
        problems += ["  app: " + line for line in app_lines[:4]]
    return problems


def attach_survey(app, build, work, xdg, servers, count, frames, rng, flight=False):
    """Runs one program traceable and captures it count times; returns its rows:
    one per capture, after the program's own row when there is something to
    say about it (not installed, did not start, crashed, did not stop)."""
    gltrace = os.path.join(build, "bin", "gltrace")
    argv = attach_argv(app, build, work)
    program = Capture(app, 0)
    if not os.access(argv[0], os.X_OK):
        program.details.append(f"{argv[0]} not installed (package {app.package})")
        return [program]
    env = clean_env(xdg)
    env.update(app.env)
    if app.platform == "x11":
        env["DISPLAY"] = servers.x11(env).display
    elif app.platform == "wayland":
        env["WAYLAND_DISPLAY"] = servers.wayland(env).socket
    log = os.path.join(work, app.name + ".attach.log")
    flight_dir = os.path.join(work, app.name + ".flight")
    if flight:
        os.makedirs(flight_dir, exist_ok=True)
    running = Traceable(app, argv, gltrace, env, xdg, log, frames if flight else None, flight_dir)
    captured = []  # (capture, its trace, the app's output meanwhile, the attach's problems)
    problems = []
    try:
        if running.problem:
            problems.append(running.problem)
        elif (row := wait_for_ps(gltrace, env, running.proc,
                                 lambda _, n: n >= FIRST_FRAMES, 60)) is not True:
            if running.ended():
                problems.append(f"the program ended before its first capture: "
                                f"{running.ended()}; its output: {log}")
            elif row is None:
                # Its control socket comes with its first eglInitialize: a
                # GLX program may never call it.
                program.details.append("`gltrace ps` did not list it in 60 s; capturing anyway")
            else:
                # Off-screen programs may end no frame: capture anyway, the
                # attach's --duration ends it.
                program.details.append(f"`gltrace ps` counted {row[1]} app frames in 60 s "
                                       f"(fewer than {FIRST_FRAMES}); capturing anyway")
        for index in range(1, count + 1 if not problems else 1):
            time.sleep(rng.uniform(0.0, 1.5))
            cap = Capture(app, index)
            if running.ended():
                cap.judge([f"the program ended before this capture: {running.ended()}; "
                           f"its output: {log}"])
                captured.append((cap, None, "", []))
                break
            trace = os.path.join(work, f"{app.name}.{'flight' if flight else 'attach'}-{index}"
                                 ".gltrace")
            if flight:
                # Past the first round: a trace of at least `frames` frames.
                wait_for_ps(gltrace, env, running.proc, lambda _, n: n >= 2 * frames + 4, 30)
                attach_problems, output = flight_once(running, gltrace, env, trace)
                frames_written = None
            else:
                # The previous attach may still be finishing in the app.
                wait_for_ps(gltrace, env, running.proc, lambda state, _: state == "idle", 20)
                attach_problems, output, frames_written = attach_once(cap, running, gltrace, env,
                                                                      trace, frames)
            captured.append((cap, trace, output, attach_problems))
            # A program that ended no frame in ATTACH_DURATION s (GLX,
            # off-screen without frame ends), or that attach cannot reach,
            # does the same next time.
            why = (f"gltrace {'flight' if flight else 'attach'} failed" if attach_problems else
                   f"no frame in {ATTACH_DURATION} s" if frames_written == 0 else None)
            if why and index < count:
                left = count - index
                cap.details.append(f"{why}: {left} more capture{'s' if left > 1 else ''} "
                                   "skipped")
                break
    finally:
        stop_problem = running.stop()
    if stop_problem:
        problems.append(stop_problem)

    # Replayed after the program stops: on a small machine a replay beside the
    # program slows it, and its captures then take longer.
    for cap, trace, output, attach_problems in captured:
        if trace is not None:
            cap.judge(attach_problems or check_capture(cap, gltrace, xdg, trace, output))
    if problems:
        program.judge(problems)
    elif program.details:
        program.verdict = "note"
    else:
        return [c for c, *_ in captured]
    return [program] + [c for c, *_ in captured]


def print_attach_table(rows):
    header = ("app", "#", "from frame", "calls", "snapshot", "not exact", "identical/total",
              "verdict")
    table = [header] + [(r.app.name, r.index or "-", r.from_frame, r.calls, r.snapshot_calls,
                         r.not_exact, r.identical, r.verdict) for r in rows]
    widths = [max(len(str(t[i])) for t in table) for i in range(len(header))]
    for t in table:
        print("  ".join(str(v).ljust(w) for v, w in zip(t, widths)).rstrip())
    for r in rows:
        if r.details:
            print(f"\n{r.app.name}" + (f" capture {r.index}:" if r.index else ":"))
            for line in r.details:
                print("  " + line)


def attach_main(args, apps, build, work, xdg, servers):
    """The --attach mode: rows of captures, exit status 1 if a required one failed."""
    seed = args.seed if args.seed is not None else random.randrange(1 << 30)
    print(f"real_apps.py --attach {args.attach}{' --flight' if args.flight else ''} "
          f"--capture-frames {args.capture_frames} --seed {seed}", flush=True)
    write_forever_qml(work)
    rows = []
    for app in apps:
        # A generator per program: --only NAME repeats its pauses for a seed.
        rng = random.Random(f"{seed}:{app.name}")
        rows += attach_survey(app, build, work, xdg, servers, args.attach,
                              args.capture_frames, rng, args.flight)
    print_attach_table(rows)
    captures = [r for r in rows if r.index]
    count = {v: sum(1 for r in rows if r.verdict == v)
             for v in ("PASS", "FAIL", "XFAIL", "XPASS", "SKIP")}
    failed = count["FAIL"] + (count["XFAIL"] if args.strict else 0)
    passed = count["PASS"] + count["XPASS"]
    print(f"\n{len(captures)} captures of {len({r.app.name for r in captures})} programs: "
          f"{passed} passed, {failed} failed, {count['SKIP']} skipped"
          f" ({count['XFAIL']} known failures, {count['XPASS']} known failures now pass), "
          f"seed {seed}")
    return 1 if failed else 0


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
    ap.add_argument("--attach", type=int, metavar="K",
                    help="run each program traceable and capture it K times mid-run")
    ap.add_argument("--capture-frames", type=int, default=10, metavar="N",
                    help="--attach: frames per capture (default 10)")
    ap.add_argument("--seed", type=int, metavar="S",
                    help="--attach: seed of the pauses before the captures (default: random, "
                         "printed)")
    ap.add_argument("--flight", action="store_true",
                    help="--attach: run each program under the flight recorder and ask it "
                         "for its last frames instead of attaching")
    args = ap.parse_args()
    # A shell's background job ignores SIGINT, and an ignored signal stays
    # ignored in the programs started: SDL then never installs its handler and
    # its programs do not stop at the SIGINT they are stopped by.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    if args.flight and args.attach is None:
        ap.error("--flight goes with --attach K")
    if args.attach is not None and (args.attach < 1 or args.capture_frames < 1):
        ap.error("--attach and --capture-frames need at least 1")

    known_apps = APPS + (BUNDLED_APPS if args.attach else [])
    apps = [a for a in known_apps if args.set == "all" or a.ci]
    if args.only:
        unknown = set(args.only) - {a.name for a in known_apps}
        if unknown:
            ap.error("unknown program(s): " + ", ".join(sorted(unknown)))
        apps = [a for a in known_apps if a.name in args.only]
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
    servers = Servers(xdg, WESTON_ATTACH_ARGS if args.attach else ())
    if args.attach:
        try:
            return attach_main(args, apps, build, work, xdg, servers)
        finally:
            servers.close()
            shutil.rmtree(xdg, ignore_errors=True)
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
