"""What the benchmarks share: the demo workload and the best wall time of a
command over runs."""

import os
import subprocess
import sys
import tempfile
import time


def demo_workload(build, frames):
    """The bundled demo (a call-heavy GLES 3 app, its framebuffer tiny so the
    driver's own work is small) and the environment to run it in."""
    demo = [os.path.join(build, "bin", "gltrace-demo"), "--frames", str(frames),
            "--size", "32x32"]
    env = dict(os.environ)
    env.setdefault("XDG_RUNTIME_DIR", tempfile.mkdtemp())
    # Rasterising on the calling thread: llvmpipe's own threads would compete
    # with the tools' for the cores and blur the differences measured.
    env.setdefault("LP_NUM_THREADS", "0")
    # Every run compiles its shaders: with Mesa's disk cache, the first run
    # of a command compiles and later ones load, so whichever ran first
    # (the native one, in call_mix) carried the compiler's instructions.
    env.setdefault("MESA_SHADER_CACHE_DISABLE", "true")
    return demo, env


def heap_padded(env):
    """env with a 16 MiB glibc heap pad. Mesa allocates and frees buffer
    storage per call; glibc's default trims the heap top back to the kernel
    each time, so each copy faults fresh pages in, and a tool that merely
    changes the app's allocation pattern changes that cost (either way).
    With the same pad for all, a comparison measures the tools' own work."""
    return dict(env, GLIBC_TUNABLES="glibc.malloc.top_pad=16777216")


def best_times(cmds, runs, env=None, stdout=subprocess.DEVNULL):
    """The best wall time of each command, the commands taking turns: the
    machine's speed drifts (a shared VM's by 20% and more), and runs in turn
    see the same drift, where blocks of runs of one command would not."""
    best = [float("inf")] * len(cmds)
    for _ in range(runs):
        for i, cmd in enumerate(cmds):
            start = time.perf_counter()
            subprocess.run(cmd, check=True, env=env, stdout=stdout, stderr=subprocess.DEVNULL)
            best[i] = min(best[i], time.perf_counter() - start)
    return best


class Xvfb:
    """An X server of its own, on a display number unlikely to be taken."""

    def __enter__(self):
        for number in range(100 + os.getpid() % 800, 1000):
            if os.path.exists(f"/tmp/.X11-unix/X{number}") or os.path.exists(
                    f"/tmp/.X{number}-lock"):
                continue
            self.display = f":{number}"
            self.process = subprocess.Popen(
                ["Xvfb", self.display, "-screen", "0", "1280x1024x24", "-nolisten", "tcp"],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            for _ in range(50):
                if os.path.exists(f"/tmp/.X11-unix/X{number}"):
                    return self
                if self.process.poll() is not None:
                    break
                time.sleep(0.1)
            self.process.kill()
            self.process.wait()
        sys.exit("Xvfb did not start")

    def __exit__(self, *exc):
        self.process.terminate()
        self.process.wait()
