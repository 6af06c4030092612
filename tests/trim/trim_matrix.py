#!/usr/bin/env python3
"""Trims traces at random frame ranges and replays each cut with --compare.

For every TRACE, N ranges A-B are drawn (a fixed seed: the same ranges each
run); each is cut with `gltrace trim` and replayed headless with `gltrace
replay --compare`, which compares every frame with the image the original
capture recorded for it. Prints one line per cut (frames, sizes, calls of the
snapshot, objects not exact, frames identical) and exits 1 when any cut
fails or a frame differs.

  trim_matrix.py BUILD_DIR WORK_DIR TRACE... [--ranges N] [--seed S] [--max-len L]
"""

import argparse
import os
import random
import re
import subprocess
import sys


def frames_and_images(gltrace, trace):
    info = subprocess.run([gltrace, "info", trace], capture_output=True, text=True, check=True)
    frames = int(re.search(r"^frames:\s+(\d+)", info.stdout, re.M).group(1))
    images = re.search(r"^images:\s+(\d+)", info.stdout, re.M)
    return frames, int(images.group(1)) if images else 0


def main():
    p = argparse.ArgumentParser()
    p.add_argument("build")
    p.add_argument("work")
    p.add_argument("traces", nargs="+")
    p.add_argument("--ranges", type=int, default=10)
    p.add_argument("--seed", type=int, default=25)
    p.add_argument("--max-len", type=int, default=20, help="frames in a cut at most")
    p.add_argument("--timeout", type=int, default=600)
    a = p.parse_args()
    gltrace = os.path.join(a.build, "bin", "gltrace")
    os.makedirs(a.work, exist_ok=True)
    rng = random.Random(a.seed)
    failed = 0
    print(f"{'trace':28} {'frames':>9} {'size':>9} {'cut size':>9} {'snapshot':>8} "
          f"{'inexact':>7}  result")
    for trace in a.traces:
        name = os.path.splitext(os.path.basename(trace))[0]
        total, images = frames_and_images(gltrace, trace)
        if total < 2:
            print(f"{name:28} has {total} frames: nothing to cut")
            continue
        for _ in range(a.ranges):
            first = rng.randrange(1, total)
            last = min(total - 1, first + rng.randrange(0, a.max_len))
            out = os.path.join(a.work, f"{name}.{first}-{last}.gltrace")
            if os.path.exists(out):
                os.unlink(out)
            cut = subprocess.run([gltrace, "trim", "--frames", f"{first}-{last}", "-o", out, trace],
                                 capture_output=True, text=True, timeout=a.timeout)
            line = f"{name:28} {first:>4}-{last:<4} {os.path.getsize(trace) / 1e6:8.2f}M "
            if cut.returncode != 0:
                failed += 1
                print(line + "trim failed: " + cut.stderr.strip().replace("\n", " | ")[-400:])
                continue
            snapshot = re.search(r"a snapshot of (\d+) calls \((\d+) not exact\)", cut.stderr)
            compare = ["--compare"] if images else []
            replay = subprocess.run([gltrace, "replay", "-n"] + compare + [out],
                                    capture_output=True, text=True, timeout=a.timeout)
            frames = re.search(r"compare: (\d+) frames identical, (\d+) differ, (\d+) without a "
                               r"trace image, (\d+) not replayed", replay.stderr + replay.stdout)
            # A trace without framebuffer images: the cut must replay without error.
            ok = replay.returncode == 0 and (frames is None or (frames.group(2) == "0"
                                                                and frames.group(4) == "0"))
            failed += 0 if ok else 1
            result = frames.group(0) if frames else "replayed (the trace has no images)"
            if not ok:
                errors = [l for l in (replay.stderr + replay.stdout).splitlines()
                          if l.startswith("call ") or "error" in l]
                result += " | " + " | ".join(errors[:3])
            print(line + f"{os.path.getsize(out) / 1e6:8.2f}M {snapshot.group(1):>8} "
                  f"{snapshot.group(2):>7}  {'ok' if ok else 'FAIL'}: {result}")
            sys.stdout.flush()
    print(f"{failed} cut(s) failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
