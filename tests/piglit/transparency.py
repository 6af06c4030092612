#!/usr/bin/env python3
"""Transparency check against a test suite nobody here wrote: piglit's GLES
and EGL tests (opengl, shader and glslparser profiles) must give the same
result with and without the trace layer (full mode, every call recorded,
the framebuffer read back at every swap and after every draw). On the glx
platform, its desktop GL and GLX tests instead (the opengl profile's tests
but the GLES and EGL ones, and the shader profile's shader_runner ones).

  transparency.py BUILD_DIR WORK_DIR --platform surfaceless_egl|x11_egl|glx
                  [--full] [--max N] [--every N] [--only REGEX]

x11_egl and glx run under an Xvfb of their own. Some tests give different results from
one native run to the next (on X11, xcb_connect fails now and then). So a
test whose traced result
is not its native one runs RERUNS more times each way (with --full, every test
runs natively twice first), and differs only if none of its traced results is
one of its native results. Prints the per-result counts of the full runs, the
tests whose native runs differ, and every test that differs under tracing;
exits 1 if any does. piglit's egl_khr_fence_sync compares strings of a driver
it unloaded, so its result depends on where the driver is loaded again: its
differences are shown, not counted. Also checks that each traced test process
left a readable trace.
"""

import argparse
import collections
import concurrent.futures
import glob
import gzip
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET

PIGLIT = "/usr/lib/x86_64-linux-gnu/piglit"
RERUNS = 3

# Tests whose result depends on the address-space layout, which any preload
# changes: their differences are shown but not counted.
LAYOUT_DEPENDENT = {
    # Keeps the GL_EXTENSIONS strings of the driver past eglTerminate, which
    # unloads it, and compares them in the next subtest: natively the driver
    # is mapped again elsewhere (skip, or crash), traced it is often mapped
    # again at the same address (pass). Natively a subtest passes only when
    # it lands there too (gdb, without address randomization: a crash).
    "spec@egl_khr_fence_sync@conformance",
}

# Profile -> the binaries whose tests are GLES or EGL ones.
SELECTIONS = {
    "opengl": r"(_gles[123]$|^egl)",
    "shader": r"^shader_runner_gles[23]$",
    "glslparser": r"^glslparsertest_gles2$",
}
# On the glx platform: the desktop GL and GLX ones.
SELECTIONS_GLX = {
    "opengl": r"^(?!.*_gles[123]$)(?!egl)",
    "shader": r"^shader_runner$",
}


def select_tests(profile, pattern):
    with gzip.open(f"{PIGLIT}/tests/{profile}.xml.gz") as f:
        root = ET.parse(f).getroot()
    names = []
    for test in root:
        for option in test.findall("option"):
            if option.get("name") == "command":
                command = option.get("value")
                first = re.match(r"\['([^']*)'", command)
                if first and re.search(pattern, os.path.basename(first.group(1))):
                    names.append(test.get("name"))
    return names


class Xvfb:
    """An Xvfb on a free random display, ended by its pid."""

    def __init__(self):
        self.process = None
        for _ in range(20):
            number = random.randint(100, 999)
            if os.path.exists(f"/tmp/.X{number}-lock") or os.path.exists(
                    f"/tmp/.X11-unix/X{number}"):
                continue
            process = subprocess.Popen(
                ["Xvfb", f":{number}", "-screen", "0", "1280x1024x24", "-nolisten", "tcp"],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            for _ in range(100):
                if process.poll() is not None or os.path.exists(f"/tmp/.X11-unix/X{number}"):
                    break
                time.sleep(0.05)
            if process.poll() is None and os.path.exists(f"/tmp/.X11-unix/X{number}"):
                self.process = process
                self.display = f":{number}"
                return
            process.kill()
            process.wait()
        raise RuntimeError("cannot start Xvfb on a free display")

    def stop(self):
        if self.process is not None:
            self.process.terminate()
            self.process.wait()
            self.process = None


def run_piglit(platform, profile, tests, results, env, work):
    listing = os.path.join(work, f"{profile}.list")
    with open(listing, "w") as f:
        f.write("\n".join(tests) + "\n")
    subprocess.run(["piglit", "run", "-o", "-p", platform, "-l", "dummy",
                    "--test-list", listing, profile, results],
                   env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    summary = subprocess.run(["piglit", "summary", "console", results],
                             capture_output=True, text=True, check=True).stdout
    outcome = {}
    for line in summary.splitlines():
        m = re.match(r"^(.*): (pass|fail|skip|crash|warn|timeout|incomplete|dmesg-warn|dmesg-fail)$",
                     line)
        if m:
            outcome[m.group(1)] = m.group(2)
    return outcome


def owning_test(result_name, tests):
    """The listed test a summary line belongs to (a subtest's name extends it)."""
    best = None
    for test in tests:
        key = test.replace("@", "/")
        if (result_name == key or result_name.startswith(key + "/")) and (
                best is None or len(test) > len(best)):
            best = test
    return best


def counts_line(outcomes):
    counts = collections.Counter(outcomes.values())
    return ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("build")
    ap.add_argument("work")
    ap.add_argument("--platform", choices=["surfaceless_egl", "x11_egl", "glx"], required=True)
    ap.add_argument("--max", type=int, default=0, help="run only the first N tests of each profile")
    ap.add_argument("--every", type=int, default=1,
                    help="run every Nth test of each profile (in its order: a sample of all kinds)")
    ap.add_argument("--only", help="run only the tests whose name matches this regex")
    ap.add_argument("--full", action="store_true",
                    help="run every test natively twice (by default the second native run is "
                         "only for tests whose traced result is not their first native one)")
    args = ap.parse_args()
    if not os.path.isdir(PIGLIT):
        print("piglit is not installed (Debian package piglit): 0 passed, 0 failed, 1 skipped")
        return 0
    if args.platform != "surfaceless_egl" and shutil.which("Xvfb") is None:
        print("Xvfb is not installed (Debian package xvfb): 0 passed, 0 failed, 1 skipped")
        return 0
    started = time.monotonic()
    build = os.path.abspath(args.build)
    work = os.path.abspath(args.work)
    shutil.rmtree(work, ignore_errors=True)  # piglit refuses to overwrite results
    os.makedirs(work, exist_ok=True)
    wanted = SELECTIONS_GLX if args.platform == "glx" else SELECTIONS
    selections = {profile: select_tests(profile, pattern) for profile, pattern in wanted.items()}
    if args.only:
        selections = {k: [t for t in v if re.search(args.only, t)] for k, v in selections.items()}
        selections = {k: v for k, v in selections.items() if v}
    if args.every > 1:
        selections = {k: v[::args.every] for k, v in selections.items()}
    if args.max:
        selections = {k: v[:args.max] for k, v in selections.items()}

    base = dict(os.environ)
    for name in list(base):
        if name.startswith("GLTRACE_") or name in ("LD_PRELOAD", "DEBUG_GLES_LAYERS", "DISPLAY",
                                                   "WAYLAND_DISPLAY"):
            del base[name]
    if shutil.which("wflinfo") is None:
        # Without wflinfo piglit takes the GL version for 0.0 and skips, unrun,
        # every test that names one: each test decides for itself instead.
        print("wflinfo is not installed (Debian package waffle-utils): piglit's fast skipping off")
        base["PIGLIT_NO_FAST_SKIP"] = "1"
    if "XDG_RUNTIME_DIR" not in base:
        base["XDG_RUNTIME_DIR"] = tempfile.mkdtemp(prefix="runtime-", dir=work)
    traces = os.path.join(work, "traces")
    os.makedirs(traces, exist_ok=True)
    traced = dict(base)
    traced.update({
        "LD_PRELOAD": f"{build}/lib/gltrace/libgltrace.so",
        "GLTRACE_LAYER_PATH": f"{build}/lib/gltrace/layers",
        "DEBUG_GLES_LAYERS": "libGLES_trace.so",
        # piglit starts tests in /usr/bin: the output path must be absolute.
        "GLTRACE_TRACE_FILE": traces + "/%n-%p.gltrace",
        "GLTRACE_CAPTURE_FRAMEBUFFER": "swap,draw",
    })

    xvfb = None
    if args.platform != "surfaceless_egl":
        xvfb = Xvfb()
        base["DISPLAY"] = traced["DISPLAY"] = xvfb.display
    # The second native run only matters for a test whose traced result is not
    # its first native one: by default only those tests run again (--full:
    # every test, for the counts).
    plan = [("native 1", base), ("traced", traced)] + ([("native 2", base)] if args.full else [])
    runs = {run: {} for run, _ in plan}
    # Every result each test gave, natively and traced, reruns included.
    seen = {"native": collections.defaultdict(set), "traced": collections.defaultdict(set)}
    reruns = []
    try:
        for profile, tests in selections.items():
            for run, env in plan:
                results = os.path.join(work, f"{profile}-{run.replace(' ', '')}")
                runs[run].update(run_piglit(args.platform, profile, tests, results, env, work))
        names = set().union(*(outcomes.keys() for outcomes in runs.values()))
        for name in names:
            for run, outcomes in runs.items():
                seen["traced" if run == "traced" else "native"][name].add(
                    outcomes.get(name, "missing"))
        suspects = {name for name in names if not seen["traced"][name] & seen["native"][name]}
        for profile, tests in selections.items():
            again = sorted({owning_test(name, tests) for name in suspects} - {None})
            if not again:
                continue
            reruns += again
            for k in range(RERUNS):
                for kind, env in (("native", base), ("traced", traced)):
                    results = os.path.join(work, f"{profile}-{kind}-rerun{k + 1}")
                    outcomes = run_piglit(args.platform, profile, again, results, env, work)
                    for name in suspects:
                        if owning_test(name, again) is not None:
                            seen[kind][name].add(outcomes.get(name, "missing"))
    finally:
        if xvfb is not None:
            xvfb.stop()

    unstable, differences, uncounted = [], [], []
    all_tests = [test for tests in selections.values() for test in tests]
    for test in sorted(names):
        natively, traced_results = seen["native"][test], seen["traced"][test]
        if len(natively) > 1:
            unstable.append(f"{test}: {' or '.join(sorted(natively))}")
        if not natively & traced_results:
            line = (f"{test}: {' or '.join(sorted(natively))} natively, "
                    f"{' or '.join(sorted(traced_results))} traced")
            if owning_test(test, all_tests) in LAYOUT_DEPENDENT:
                uncounted.append(line)
            else:
                differences.append(line)

    trace_files = glob.glob(os.path.join(traces, "*.gltrace"))

    def read_back(trace):
        r = subprocess.run([f"{build}/bin/gltrace", "info", trace], capture_output=True, text=True)
        return None if r.returncode == 0 else f"{trace}: {r.stderr.strip()}"

    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 1) as pool:
        unreadable = [line for line in pool.map(read_back, trace_files) if line is not None]

    print(f"platform {args.platform}, profiles {', '.join(selections)}, "
          f"{sum(len(t) for t in selections.values())} tests listed")
    for run, outcomes in runs.items():
        print(f"{run}: {counts_line(outcomes)}")
    print(f"traces written: {len(trace_files)}, unreadable: {len(unreadable)}")
    if reruns:
        print(f"run {RERUNS} more times each way (a traced result no native run gave): "
              + ", ".join(reruns))
    else:
        print("every traced result was a native one: nothing run again")
    for line in unstable:
        print("  NATIVE RUNS DIFFER: " + line)
    for line in uncounted:
        print("  DIFFERENT, NOT COUNTED (result depends on the address layout): " + line)
    for line in differences:
        print("  DIFFERENT: " + line)
    for line in unreadable:
        print("  UNREADABLE: " + line)
    print(f"time: {time.monotonic() - started:.0f} s")
    total = len(names)
    failed = len(differences) + len(unreadable)
    print(f"{total - len(differences) - len(uncounted)} passed, {failed} failed, "
          f"{len(uncounted)} not counted")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
