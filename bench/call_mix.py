#!/usr/bin/env python3
"""gltrace against apitrace on several call mixes, in one run.

Each workload (the demo and gltrace-bench-mix's mixes: uniform, state,
upload, draw, small-frames, two-threads) runs natively, under `gltrace trace`
and under `apitrace trace --api egl`, taking turns (best of R). Per workload
it prints the tracing overhead per call, trace bytes per call, dump time,
and replay overhead per call (`gltrace replay -n --benchmark` against
`eglretrace -b --headless`; in instructions also with `--preload`, counting
only the replay of the calls once in memory), each with its gltrace/apitrace
ratio. Times on a
shared 2-core machine swing from run to run; with --callgrind it also counts
instructions per call (valgrind's callgrind), which do not: what each tracer
adds (all threads, and the app's threads alone), what each replayer adds, and
what each dumper spends. --instructions-only skips the timed runs.
--traceable counts only what a traceable app (`gltrace run --traceable`,
not tracing: live tracing's idle table and the object list a mid-run
capture's snapshot needs) pays per call, over the interposer alone (`gltrace
run`) and over the app run natively; apitrace has no such state.

With --glx the mixes run on GLX and desktop GL (gltrace-bench-mix --glx, a
window of an Xvfb of the script's own; the immediate mix adds desktop GL's
glBegin/glVertex/glEnd), against `apitrace trace --api gl` (glxtrace) and
`glretrace -b`.

  bench/call_mix.py BUILD_DIR [--frames N] [--runs R] [--mixes a,b,...] [--glx]
                    [--callgrind | --instructions-only | --traceable] [--callgrind-frames N]
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
MIXES_GLX = ["uniform", "state", "upload", "draw", "small-frames", "immediate"]

# What apitrace traces and replays with: EGL's (egltrace, eglretrace
# headless) or, with --glx, GLX's (glxtrace, glretrace on the Xvfb).
APITRACE = {"api": "egl", "retrace": ["eglretrace", "-b", "--headless"], "glx": False}


def use_glx():
    APITRACE.update(api="gl", retrace=["glretrace", "-b"], glx=True)


def workload(build, mix, frames):
    """The command line of a workload and the environment to run it in."""
    if mix == "demo":
        return demo_workload(build, frames)
    _, env = demo_workload(build, frames)
    glx = ["--glx"] if APITRACE["glx"] else []
    return [os.path.join(build, "bin", "gltrace-bench-mix"), "--mix", mix, "--frames",
            str(frames), *glx], env


def trace_calls(gltrace, path):
    info = subprocess.run([gltrace, "info", path], check=True, capture_output=True,
                          text=True).stdout
    return int(re.search(r"calls:\s+(\d+)", info).group(1))


# A thread the trace layer started (its writer, the sweeper, the live-tracing
# threads): its entry point is a function of gltrace's, run through
# std::thread, whose _M_run only the new thread calls. (Names are written out
# in full, --compress-strings=no: compressed, a name is spelled once for all
# of a process's threads, in whichever thread's file is dumped first, so the
# app's main thread could be taken for the writer.)
TOOL_THREAD_ENTRY = (r"std::thread::_State_impl<std::thread::_Invoker<"
                     r"std::tuple<gltrace::.*>::_M_run\(\)")
TOOL_THREAD = re.compile(r"^fn=" + TOOL_THREAD_ENTRY + "$", re.M)
# The same entry points as callgrind_annotate --inclusive=yes lists them,
# with what each cost: valgrind gives a thread that ended's number to the
# next one started, so a short-lived thread of the trace layer (its light
# fence's) may share a file with an app thread started after it, and only
# its own cost is the tool's.
TOOL_THREAD_COST = re.compile(r"^\s*([\d,]+) \([^)]*\)\s+\S*" + TOOL_THREAD_ENTRY + r" \[", re.M)


def tool_thread_instructions(path):
    annotated = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--threshold=100", path],
                               check=True, capture_output=True, text=True).stdout
    return sum(int(m.group(1).replace(",", "")) for m in TOOL_THREAD_COST.finditer(annotated))


# What `gltrace replay --preload` executes once its calls are in memory: the
# replay loop on the main thread and each replay thread's lane (collection
# is per thread in callgrind, so each thread's entry is toggled), not the
# preload before it nor the reading thread. llvmpipe rasterizes on the
# calling thread here (LP_NUM_THREADS=0): it has no thread of its own.
REPLAY_PHASE = ["--collect-atstart=no",
                "--toggle-collect=gltrace::replay::Replayer::replay()",
                "--toggle-collect=std::thread::_State_impl<std::thread::_Invoker<"
                "std::tuple<gltrace::replay::Engine::*>::_M_run()"]


def callgrind_instructions(cmd, env, tmp, callgrind_args=()):
    """Instructions of cmd and every process it starts, under callgrind:
    (all threads, the app's own threads). The second leaves out the threads
    gltrace's trace layer starts (its writer compresses and writes there),
    so it is the cost the app's threads carry."""
    out = tempfile.mkdtemp(dir=tmp)
    subprocess.run(["valgrind", "--tool=callgrind", "--trace-children=yes",
                    "--separate-threads=yes", "--compress-strings=no", *callgrind_args,
                    "--callgrind-out-file=" + os.path.join(out, "cg.%p"), *cmd],
                   check=True, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    total = app = 0
    for path in glob.glob(os.path.join(out, "cg.*")):
        with open(path, errors="replace") as f:
            text = f.read()
        summary = re.search(r"^(?:summary|totals): (\d+)", text, re.M)
        if summary is None:
            continue
        total += int(summary.group(1))
        app += int(summary.group(1))
        if TOOL_THREAD.search(text):
            app -= tool_thread_instructions(path)
    shutil.rmtree(out)
    return total, app


def marginal_instructions(gltrace, build, mix, frames, env, tmp):
    """Instructions per call, each tool's against the other's: the same
    workload at `frames` and at 3x `frames` frames, so start-up (loading,
    clock calibration, the registry's entry points) cancels out. Per key a
    (gltrace, apitrace) pair:
      trace       what tracing adds to the app, all threads;
      trace_app   the same in the app's threads (without gltrace's writer);
      replay      what replaying adds to the app's own work (`gltrace replay
                  -n --benchmark`, `eglretrace -b --headless`);
      replay_preload  the same for `gltrace replay -n --benchmark --preload`,
                  counting only its replay once the calls are in memory (the
                  executor's cost), against eglretrace's whole replay;
      replay_all  the replays' whole instructions (where an app computes much
                  besides its calls, as the demo does, a replay costs less
                  than the app and the added work above is negative);
      dump        `gltrace dump` against `apitrace dump`, to /dev/null."""
    counts = {}
    calls = []
    for n in (frames, 3 * frames):
        app, _ = workload(build, mix, n)
        ours = os.path.join(tmp, f"{mix}.{n}.gltrace")
        theirs = os.path.join(tmp, f"{mix}.{n}.trace")
        native = callgrind_instructions(app, env, tmp)
        traced = callgrind_instructions([gltrace, "trace", "-o", ours, "--", *app], env, tmp)
        apitraced = callgrind_instructions(["apitrace", "trace", "--api", APITRACE["api"], "-o", theirs,
                                            *app], env, tmp)
        total = lambda cmd: callgrind_instructions(cmd, env, tmp)[0]  # noqa: E731
        replays = (total([gltrace, "replay", "-n", "--benchmark", ours]),
                   total([*APITRACE["retrace"], theirs]))
        preloaded = callgrind_instructions([gltrace, "replay", "-n", "--benchmark", "--preload",
                                            ours], env, tmp, REPLAY_PHASE)[0]
        counts[n] = {
            "native": native[0],
            "trace": (traced[0] - native[0], apitraced[0] - native[0]),
            "trace_app": (traced[1] - native[1], apitraced[1] - native[1]),
            "replay": (replays[0] - native[0], replays[1] - native[0]),
            "replay_preload": (preloaded - native[0], replays[1] - native[0]),
            "replay_all": replays,
            "dump": (total([gltrace, "dump", ours]), total(["apitrace", "dump", theirs])),
        }
        calls.append(trace_calls(gltrace, ours))
    extra_calls = calls[1] - calls[0]
    return {key: tuple((counts[3 * frames][key][i] - counts[frames][key][i]) / extra_calls
                       for i in range(2))
            for key in ("trace", "trace_app", "replay", "replay_preload", "replay_all", "dump")}


def traceable_instructions(gltrace, build, mix, frames, env, tmp):
    """Instructions per call (app threads) that the interposer alone and a
    traceable app add to the native run, at `frames` and 3x `frames` frames
    (start-up cancels out); calls counted from a trace of the same run."""
    counts, calls = {}, []
    for n in (frames, 3 * frames):
        app, _ = workload(build, mix, n)
        trace = os.path.join(tmp, f"{mix}.{n}.gltrace")
        counts[n] = [callgrind_instructions(cmd, env, tmp)[1] for cmd in
                     (app, [gltrace, "run", "--", *app],
                      [gltrace, "run", "--traceable", "--", *app])]
        subprocess.run([gltrace, "trace", "-o", trace, "--", *app], env=env, check=True,
                       capture_output=True)
        calls.append(trace_calls(gltrace, trace))
    per_call = [(counts[3 * frames][i] - counts[frames][i]) / (calls[1] - calls[0])
                for i in range(3)]
    return {"interposer": per_call[1] - per_call[0], "traceable": per_call[2] - per_call[0]}


def ratio(ours, theirs):
    """nan where theirs is no cost (a replay below the app's own work)."""
    return ours / theirs if theirs > 0 else float("nan")


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("build")
    ap.add_argument("--frames", type=int, default=500)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--mixes", default=",".join(MIXES))
    ap.add_argument("--callgrind", action="store_true")
    ap.add_argument("--instructions-only", action="store_true")
    ap.add_argument("--callgrind-frames", type=int, default=10)
    ap.add_argument("--traceable", action="store_true")
    ap.add_argument("--glx", action="store_true", help="GLX and desktop GL's mixes")
    args = ap.parse_args()
    args.callgrind |= args.instructions_only
    if args.glx:
        use_glx()
        if "--mixes" not in sys.argv:
            args.mixes = ",".join(MIXES_GLX)
    for tool in ("apitrace", APITRACE["retrace"][0]):
        if shutil.which(tool) is None:
            sys.exit(f"{tool} is not installed (Debian package apitrace)")
    if args.callgrind and shutil.which("valgrind") is None:
        sys.exit("valgrind is not installed")
    gltrace = os.path.join(args.build, "bin", "gltrace")
    tmp = tempfile.mkdtemp()
    rows = []
    xvfb = Xvfb() if args.glx else None
    known = MIXES_GLX if args.glx else MIXES
    for mix in args.mixes.split(","):
        if mix not in known:
            sys.exit(f"unknown mix {mix!r}: one of {', '.join(known)}")
        app, env = workload(args.build, mix, args.frames)
        env = heap_padded(env)  # see timing.heap_padded: the tools' own work only
        if xvfb is not None:
            env["DISPLAY"] = xvfb.display
        else:
            env["WAFFLE_PLATFORM"] = "surfaceless_egl"  # eglretrace --headless needs it here
        if args.traceable:
            t = traceable_instructions(gltrace, args.build, mix, args.callgrind_frames, env, tmp)
            print(f"{mix}: instructions per call over native (callgrind, app threads): "
                  f"interposer {t['interposer']:.1f}, traceable {t['traceable']:.1f}, "
                  f"traceable over the interposer {t['traceable'] - t['interposer']:+.1f}")
            sys.stdout.flush()
            continue
        if args.instructions_only:
            row = {"mix": mix, "instructions": marginal_instructions(
                gltrace, args.build, mix, args.callgrind_frames, env, tmp)}
            rows.append(row)
            print_row(row, args.runs)
            sys.stdout.flush()
            continue
        ours, theirs = os.path.join(tmp, mix + ".gltrace"), os.path.join(tmp, mix + ".trace")
        native, traced, apitraced = best_times(
            [app, [gltrace, "trace", "-o", ours, "--", *app],
             ["apitrace", "trace", "--api", APITRACE["api"], "-o", theirs, *app]], args.runs, env)
        calls = trace_calls(gltrace, ours)
        per_call = lambda t: (t - native) * 1e9 / calls  # noqa: E731
        dump_ours, dump_theirs = best_times(
            [[gltrace, "dump", ours], ["apitrace", "dump", theirs]], args.runs, env)
        replay_ours, replay_theirs = best_times(
            [[gltrace, "replay", "-n", "--benchmark", ours],
             [*APITRACE["retrace"], theirs]], args.runs, env)
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
          "preloaded replay <= 0.1, dump >= 10x)")
    print(f"  {'mix':13} {'calls':>9} {'trace':>7} {'bytes':>7} {'replay':>7} {'dump x':>7}")
    for r in rows:
        if "calls" not in r:
            continue
        print(f"  {r['mix']:13} {r['calls']:9d} {ratio(*r['trace']):7.3f} "
              f"{ratio(*r['bytes']):7.3f} {ratio(*r['replay']):7.3f} "
              f"{r['dump'][1] / r['dump'][0]:7.1f}")
    if any("instructions" in r for r in rows):
        print()
        print("summary in instructions per call (callgrind; steady where times are not):")
        print("  (trace: all threads; app: the app's threads, without the writer thread "
              "where gltrace compresses; apitrace has none)")
        print(f"  {'mix':13} {'trace':>7} {'app':>7} {'replay':>7} {'preload':>7} {'rep.all':>7} "
              f"{'dump x':>7}")
        for r in rows:
            if "instructions" not in r:
                continue
            i = r["instructions"]
            print(f"  {r['mix']:13} {ratio(*i['trace']):7.3f} {ratio(*i['trace_app']):7.3f} "
                  f"{ratio(*i['replay']):7.3f} {ratio(*i['replay_preload']):7.3f} "
                  f"{ratio(*i['replay_all']):7.3f} "
                  f"{i['dump'][1] / i['dump'][0]:7.1f}")
    shutil.rmtree(tmp)
    if xvfb is not None:
        xvfb.close()


class Xvfb:
    """An Xvfb on a display number it picks itself (-displayfd)."""

    def __init__(self):
        read, write = os.pipe()
        self.proc = subprocess.Popen(["Xvfb", "-displayfd", str(write), "-screen", "0",
                                      "640x480x24", "-nolisten", "tcp"], pass_fds=(write,),
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(write)
        with os.fdopen(read) as f:
            number = f.readline().strip()
        if not number:
            self.close()
            sys.exit("Xvfb did not start")
        self.display = ":" + number

    def close(self):
        self.proc.terminate()
        self.proc.wait()


def print_row(r, runs):
    if "calls" not in r:
        print(f"{r['mix']}:")
        print_instructions(r)
        return
    print(f"{r['mix']}: {r['calls']} calls, native {r['native']:.3f} s (best of {runs})")
    print(f"  trace overhead  gltrace {r['trace'][0]:8.1f} ns/call, apitrace "
          f"{r['trace'][1]:8.1f} ns/call, ratio {ratio(*r['trace']):.3f}")
    print_instructions(r)
    print(f"  trace bytes     gltrace {r['bytes'][0]:8.1f} B/call,  apitrace "
          f"{r['bytes'][1]:8.1f} B/call,  ratio {ratio(*r['bytes']):.3f}")
    print(f"  dump            gltrace {r['dump'][0]:8.3f} s,       apitrace "
          f"{r['dump'][1]:8.3f} s,       gltrace {r['dump'][1] / r['dump'][0]:.1f}x faster")
    print(f"  replay overhead gltrace {r['replay'][0]:8.1f} ns/call, {APITRACE['retrace'][0]} "
          f"{r['replay'][1]:8.1f} ns/call, ratio {ratio(*r['replay']):.3f}")


def print_instructions(r):
    if "instructions" in r:
        print(f"  instructions per call (callgrind), gltrace against apitrace/"
              f"{APITRACE['retrace'][0]}:")
        for key, what in (("trace", "trace, all threads"), ("trace_app", "trace, app threads"),
                          ("replay", "replay overhead"),
                          ("replay_preload", "replay, preloaded"), ("replay_all", "replay, all"),
                          ("dump", "dump")):
            ours, theirs = r["instructions"][key]
            print(f"    {what:18} {ours:8.0f} against {theirs:8.0f}, "
                  f"ratio {ratio(ours, theirs):.3f}")


if __name__ == "__main__":
    main()
