"""What the benchmarks share: the demo workload and the best wall time of a
command over runs."""

import os
import subprocess
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
    return demo, env


def best_time(cmd, runs, env=None, stdout=subprocess.DEVNULL):
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(cmd, check=True, env=env, stdout=stdout, stderr=subprocess.DEVNULL)
        best = min(best, time.perf_counter() - start)
    return best
