#!/usr/bin/env python3
"""gltrace against apitrace on several call mixes, in one run.

Each workload (the demo and gltrace-bench-mix's mixes: uniform, state,
upload, draw, small-frames, two-threads) runs natively, under `gltrace trace`
and under `apitrace trace --api egl`, taking turns (best of R). Per workload
it prints the tracing overhead per call, trace bytes per call, dump time,
and replay overhead per call (`gltrace replay -n --benchmark` against
`eglretrace -b --headless`), each with its gltrace/apitrace ratio. Times on a
shared 2-core machine swing from run to run; with --callgrind it also counts
the instructions each tracer adds per call (all threads, valgrind's
callgrind), which do not.

  bench/call_mix.py BUILD_DIR [--frames N] [--runs R] [--mixes a,b,...]
                    [--callgrind] [--callgrind-frames N]
"""

import argparse
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

from timing import best_times, demo_workload, heap_padded

MIXES = ["demo", "uniform", "state", "upload", "draw", "small-frames", "two-threads"]


def workload(build, mix, frames):
    """The command line of a workload and the environment to run it in."""
    if mix == "demo":
        return demo_workload(build, frames)
    _, env = demo_workload(build, frames)
    return [os.path.join(build, "bin", "gltrace-bench-mix"), "--mix", mix, "--frames",
            str(frames)], env


def trace_calls(gltrace, path):
    info = subprocess.run([gltrace, "info", path], check=True, capture_output=True,
                          text=True).stdout
    return int(re.search(r"calls:\s+(\d+)", info).group(1))


def callgrind_instructions(cmd, env, tmp):
    """Instructions of cmd and every process it starts, under callgrind."""
    out = tempfile.mkdtemp(dir=tmp)
    subprocess.run(["valgrind", "--tool=callgrind", "--trace-children=yes",
                    "--callgrind-out-file=" + os.path.join(out, "cg.%p"), *cmd],
                   check=True, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    total = 0
    for path in glob.glob(os.path.join(out, "cg.*")):
        with open(path, errors="replace") as f:
            for line in f:
                if line.startswith("summary:") or line.startswith("totals:"):
                    total += int(line.split()[1])
                    break
    shutil.rmtree(out)
    return total


def marginal_instructions(gltrace, build, mix, frames, env, tmp):
    """Instructions each tracer adds per call: the same workload at `frames`
    and at 3x `frames` frames, natively and under each tracer, so start-up
    (loading, clock calibration, the registry's entry points) cancels out."""
    counts = {}
    calls = []
    for n in (frames, 3 * frames):
        app, _ = workload(build, mix, n)
        trace = os.path.join(tmp, f"{mix}.{n}.gltrace")
        counts[n] = (
            callgrind_instructions(app, env, tmp),
            callgrind_instructions([gltrace, "trace", "-o", trace, "--", *app], env, tmp),
            callgrind_instructions(["apitrace", "trace", "--api", "egl", "-o",
                                    os.path.join(tmp, f"{mix}.{n}.trace"), *app], env, tmp))
        calls.append(trace_calls(gltrace, trace))
    extra_calls = calls[1] - calls[0]
    native, ours, theirs = (counts[3 * frames][i] - counts[frames][i] for i in range(3))
    return ((ours - native) / extra_calls, (theirs - native) / extra_calls)


def ratio(ours, theirs):
    return ours / theirs if theirs > 0 else float("nan")


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("build")
    ap.add_argument("--frames", type=int, default=500)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--mixes", default=",".join(MIXES))
    ap.add_argument("--callgrind", action="store_true")
    ap.add_argument("--callgrind-frames", type=int, default=5)
    args = ap.parse_args()
    for tool in ("apitrace", "eglretrace"):
        if shutil.which(tool) is None:
            sys.exit(f"{tool} is not installed (Debian package apitrace)")
    if args.callgrind and shutil.which("valgrind") is None:
        sys.exit("valgrind is not installed")
    gltrace = os.path.join(args.build, "bin", "gltrace")
    tmp = tempfile.mkdtemp()
    rows = []
    for mix in args.mixes.split(","):
        if mix not in MIXES:
            sys.exit(f"unknown mix {mix!r}: one of {', '.join(MIXES)}")
        app, env = workload(args.build, mix, args.frames)
        env = heap_padded(env)  # see timing.heap_padded: the tools' own work only
        env["WAFFLE_PLATFORM"] = "surfaceless_egl"  # eglretrace --headless needs it here
        ours, theirs = os.path.join(tmp, mix + ".gltrace"), os.path.join(tmp, mix + ".trace")
        native, traced, apitraced = best_times(
            [app, [gltrace, "trace", "-o", ours, "--", *app],
             ["apitrace", "trace", "--api", "egl", "-o", theirs, *app]], args.runs, env)
        calls = trace_calls(gltrace, ours)
        per_call = lambda t: (t - native) * 1e9 / calls  # noqa: E731
        dump_ours, dump_theirs = best_times(
            [[gltrace, "dump", ours], ["apitrace", "dump", theirs]], args.runs, env)
        replay_ours, replay_theirs = best_times(
            [[gltrace, "replay", "-n", "--benchmark", ours],
             ["eglretrace", "-b", "--headless", theirs]], args.runs, env)
        row = {
            "mix": mix, "calls": calls, "native": native,
            "trace": (per_call(traced), per_call(apitraced)),
            "bytes": (os.path.getsize(ours) / calls, os.path.getsize(theirs) / calls),
            "dump": (dump_ours, dump_theirs),
            "replay": (per_call(replay_ours), per_call(replay_theirs)),
        }
        if args.callgrind:
            row["instructions"] = marginal_instructions(gltrace, args.build, mix,
                                                        args.callgrind_frames, env, tmp)
        rows.append(row)
        print_row(row, args.runs)
        sys.stdout.flush()
    print()
    print("summary (gltrace / apitrace; targets: trace <= 0.1, bytes <= 0.4, replay <= 0.2, "
          "dump >= 10x)")
    print(f"  {'mix':13} {'calls':>9} {'trace':>7} {'instr':>7} {'bytes':>7} {'replay':>7} "
          f"{'dump x':>7}")
    for r in rows:
        instr = f"{ratio(*r['instructions']):7.3f}" if "instructions" in r else f"{'-':>7}"
        print(f"  {r['mix']:13} {r['calls']:9d} {ratio(*r['trace']):7.3f} {instr} "
              f"{ratio(*r['bytes']):7.3f} {ratio(*r['replay']):7.3f} "
              f"{r['dump'][1] / r['dump'][0]:7.1f}")
    shutil.rmtree(tmp)


def print_row(r, runs):
    print(f"{r['mix']}: {r['calls']} calls, native {r['native']:.3f} s (best of {runs})")
    print(f"  trace overhead  gltrace {r['trace'][0]:8.1f} ns/call, apitrace "
          f"{r['trace'][1]:8.1f} ns/call, ratio {ratio(*r['trace']):.3f}")
    if "instructions" in r:
        print(f"  instructions    gltrace {r['instructions'][0]:8.0f} /call,    apitrace "
              f"{r['instructions'][1]:8.0f} /call,    ratio {ratio(*r['instructions']):.3f}")
    print(f"  trace bytes     gltrace {r['bytes'][0]:8.1f} B/call,  apitrace "
          f"{r['bytes'][1]:8.1f} B/call,  ratio {ratio(*r['bytes']):.3f}")
    print(f"  dump            gltrace {r['dump'][0]:8.3f} s,       apitrace "
          f"{r['dump'][1]:8.3f} s,       gltrace {r['dump'][1] / r['dump'][0]:.1f}x faster")
    print(f"  replay overhead gltrace {r['replay'][0]:8.1f} ns/call, eglretrace "
          f"{r['replay'][1]:8.1f} ns/call, ratio {ratio(*r['replay']):.3f}")


if __name__ == "__main__":
    main()
