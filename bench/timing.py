"""What the benchmarks share: the best wall time of a command over runs."""

import subprocess
import time


def best_time(cmd, runs, env=None, stdout=subprocess.DEVNULL):
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(cmd, check=True, env=env, stdout=stdout, stderr=subprocess.DEVNULL)
        best = min(best, time.perf_counter() - start)
    return best
