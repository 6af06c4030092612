#!/usr/bin/env python3
"""`gltrace export` (Perfetto's protobuf format) on several real traces.

Records the traces first: the demo, glmark2-es2 scenes of different call
mixes (under Xvfb), and gltrace-bench-mix's mixes (uniform, state, upload,
draw, small-frames, two-threads). Per trace it prints the calls, the trace's
bytes, the export's bytes (zstd, the default) and their ratio to the trace,
the encoder's ns per call and calls/s (gltrace-bench-export: plain packets
from decoded records in memory, best of R), the decoder's ns per call, the
whole `gltrace export -o FILE` in calls/s (best of R, wall time) and its CPU
time per call on all its threads (reading, decoding, encoding and compressing
run on threads of their own), and with --callgrind the encoder's instructions per call (valgrind's callgrind,
counting only the encoding: stable where times on a shared 2-core machine
are not).

  bench/export_speed.py BUILD_DIR [--runs R] [--traces a,b,...] [--callgrind]
                        [--keep DIR]
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

from timing import Xvfb, best_times, demo_workload

MIXES = ["uniform", "state", "upload", "draw", "small-frames", "two-threads"]
# glmark2-es2 scenes, grouped by what their frames call most.
GLMARK2 = {
    # The trace docs/outputs.md measured first: few calls per frame, many arguments.
    "glmark2-build-texture-shading": ["build", "texture", "shading"],
    "glmark2-ideas": ["ideas"],                    # many uniforms and draws per frame
    "glmark2-desktop-effect2d": ["desktop", "effect2d"],  # FBOs, blur passes
    "glmark2-jellyfish-terrain": ["jellyfish", "terrain", "refract", "shadow"],
}
TRACES = ["demo"] + list(GLMARK2) + MIXES


def trace_calls(gltrace, path):
    info = subprocess.run([gltrace, "info", path], check=True, capture_output=True,
                          text=True).stdout
    return int(re.search(r"calls:\s+(\d+)", info).group(1))


def record(build, name, frames, seconds, path, xvfb):
    gltrace = os.path.join(build, "bin", "gltrace")
    if name == "demo":
        app, env = demo_workload(build, frames)
    elif name in GLMARK2:
        _, env = demo_workload(build, frames)
        env["DISPLAY"] = xvfb.display
        app = ["glmark2-es2", "-s", "320x240"]
        for scene in GLMARK2[name]:
            app += ["-b", f"{scene}:duration={seconds}"]
    else:
        _, env = demo_workload(build, frames)
        app = [os.path.join(build, "bin", "gltrace-bench-mix"), "--mix", name, "--frames",
               str(frames)]
    subprocess.run([gltrace, "trace", "-o", path, "--", *app], check=True, env=env,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def cpu_seconds(cmd):
    """User and system time of cmd, all its threads, best of 3."""
    best = float("inf")
    for _ in range(3):
        process = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(process.pid, 0)
        process.returncode = os.waitstatus_to_exitcode(status)
        if process.returncode != 0:
            sys.exit(f"{cmd} failed ({process.returncode})")
        best = min(best, usage.ru_utime + usage.ru_stime)
    return best


def encoder_instructions(bench, trace, tmp):
    """Instructions of the encoding alone (plain packets from memory)."""
    out = os.path.join(tmp, "callgrind.out")
    subprocess.run(["valgrind", "--tool=callgrind", "--collect-atstart=no",
                    "--toggle-collect=*encode_from_memory*", "--callgrind-out-file=" + out,
                    bench, trace, "--encode-only"],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    with open(out, errors="replace") as f:
        for line in f:
            if line.startswith("summary:") or line.startswith("totals:"):
                os.remove(out)
                return int(line.split()[1])
    sys.exit("callgrind wrote no totals")


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("build")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--traces", default=",".join(TRACES))
    ap.add_argument("--demo-frames", type=int, default=4000)
    ap.add_argument("--mix-frames", type=int, default=500)
    ap.add_argument("--glmark2-seconds", type=float, default=3)
    ap.add_argument("--callgrind", action="store_true")
    ap.add_argument("--keep", help="record the traces into DIR and keep them (reused if there)")
    args = ap.parse_args()
    names = args.traces.split(",")
    for name in names:
        if name not in TRACES:
            sys.exit(f"unknown trace {name!r}: one of {', '.join(TRACES)}")
    if any(n in GLMARK2 for n in names):
        for tool in ("glmark2-es2", "Xvfb"):
            if shutil.which(tool) is None:
                sys.exit(f"{tool} is not installed (Debian packages glmark2-es2-x11, xvfb)")
    if args.callgrind and shutil.which("valgrind") is None:
        sys.exit("valgrind is not installed")
    gltrace = os.path.join(args.build, "bin", "gltrace")
    bench = os.path.join(args.build, "bin", "gltrace-bench-export")
    tmp = tempfile.mkdtemp()
    traces_dir = args.keep or tmp
    os.makedirs(traces_dir, exist_ok=True)
    rows = []
    with Xvfb() if any(n in GLMARK2 for n in names) else _NoX() as xvfb:
        for name in names:
            trace = os.path.join(traces_dir, name + ".gltrace")
            if not os.path.exists(trace):
                frames = args.demo_frames if name == "demo" else args.mix_frames
                record(args.build, name, frames, args.glmark2_seconds, trace, xvfb)
            calls = trace_calls(gltrace, trace)
            figures = dict(kv.split("=") for kv in subprocess.run(
                [bench, trace, "--runs", str(args.runs)], check=True, capture_output=True,
                text=True).stdout.split())
            exported = os.path.join(tmp, name + ".perfetto-trace")
            export = [gltrace, "export", "-o", exported, trace]
            (export_seconds,) = best_times([export], args.runs)
            row = {
                "trace": name, "calls": calls, "bytes": os.path.getsize(trace),
                "out": os.path.getsize(exported),
                "plain": int(figures["plain_bytes"]),
                "encode": float(figures["plain_ns_per_call"]),
                "encode_zstd": float(figures["zstd_thread_ns_per_call"]),
                "decode": float(figures["decode_ns_per_call"]) +
                float(figures["read_ns_per_call"]),
                "export": calls / export_seconds,
                "export_cpu": cpu_seconds(export) * 1e9 / calls,
            }
            if args.callgrind:
                row["instructions"] = encoder_instructions(bench, trace, tmp) / calls
            rows.append(row)
            print_row(row)
            sys.stdout.flush()
    print()
    print(f"summary (best of {args.runs}; targets: ratio <= 2, export >= 10 M calls/s)")
    print(f"  {'trace':30} {'calls':>8} {'trace B':>10} {'zstd B':>10} {'ratio':>6} "
          f"{'enc ns':>7} {'enc M/s':>7} {'instr':>6} {'dec ns':>7} {'export M/s':>10} "
          f"{'CPU ns':>7}")
    for r in rows:
        instr = f"{r['instructions']:6.0f}" if "instructions" in r else f"{'-':>6}"
        print(f"  {r['trace']:30} {r['calls']:8d} {r['bytes']:10d} {r['out']:10d} "
              f"{r['out'] / r['bytes']:6.2f} {r['encode']:7.1f} {1e3 / r['encode']:7.1f} "
              f"{instr} {r['decode']:7.1f} {r['export'] / 1e6:10.2f} {r['export_cpu']:7.1f}")
    shutil.rmtree(tmp)


class _NoX:
    def __enter__(self):
        return None

    def __exit__(self, *exc):
        pass


def print_row(r):
    print(f"{r['trace']}: {r['calls']} calls, trace {r['bytes']} B, export {r['out']} B "
          f"(zstd, {r['out'] / r['bytes']:.2f}x), plain {r['plain']} B")
    instr = f", {r['instructions']:.0f} instructions/call" if "instructions" in r else ""
    print(f"  encoder {r['encode']:.1f} ns/call ({1e3 / r['encode']:.1f} M calls/s){instr}; "
          f"with zstd {r['encode_zstd']:.1f} ns/call on the encoding thread")
    print(f"  read+decode {r['decode']:.1f} ns/call; whole export {r['export'] / 1e6:.2f} M calls/s, "
          f"{r['export_cpu']:.1f} ns/call of CPU on all its threads")


if __name__ == "__main__":
    main()
