#!/usr/bin/env python3
"""Transparency check against a test suite nobody here wrote: piglit's GLES
and EGL tests must give the same result for every test with and without the
trace layer (full mode, every call recorded).

  transparency.py BUILD_DIR WORK_DIR [--max N]

Prints the per-result counts of both runs and every test whose result
differs; exits 1 if any does. Also checks that each traced test process left
a readable trace.
"""

import argparse
import collections
import glob
import gzip
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

PIGLIT = "/usr/lib/x86_64-linux-gnu/piglit"


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


def run_piglit(profile, tests, results, env, work):
    listing = os.path.join(work, f"{profile}.list")
    with open(listing, "w") as f:
        f.write("\n".join(tests) + "\n")
    subprocess.run(["piglit", "run", "-o", "-p", "surfaceless_egl", "-l", "dummy",
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


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("build")
    ap.add_argument("work")
    ap.add_argument("--max", type=int, default=0, help="run only the first N tests of each profile")
    args = ap.parse_args()
    if not os.path.isdir(PIGLIT):
        print("piglit is not installed (Debian package piglit): 0 passed, 0 failed, 1 skipped")
        return 0
    build = os.path.abspath(args.build)
    shutil.rmtree(args.work, ignore_errors=True)  # piglit refuses to overwrite results
    os.makedirs(args.work, exist_ok=True)
    selections = {
        "opengl": select_tests("opengl", r"(_gles[123]$|^egl)"),
        "shader": select_tests("shader", r"^shader_runner_gles[23]$"),
    }
    if args.max:
        selections = {k: v[:args.max] for k, v in selections.items()}

    base = dict(os.environ)
    for name in ("LD_PRELOAD", "DEBUG_GLES_LAYERS", "GLTRACE_TRACE_FILE"):
        base.pop(name, None)
    traces = os.path.join(args.work, "traces")
    os.makedirs(traces, exist_ok=True)
    traced = dict(base)
    traced.update({
        "LD_PRELOAD": f"{build}/lib/gltrace/libgltrace.so",
        "GLTRACE_LAYER_PATH": f"{build}/lib/gltrace/layers",
        "DEBUG_GLES_LAYERS": "libGLES_trace.so",
        # piglit starts tests in /usr/bin: the output path must be absolute.
        "GLTRACE_TRACE_FILE": os.path.abspath(traces) + "/%n-%p.gltrace",
    })

    differences = []
    counts = {"native": collections.Counter(), "traced": collections.Counter()}
    for profile, tests in selections.items():
        native = run_piglit(profile, tests, os.path.join(args.work, f"{profile}-native"), base,
                            args.work)
        under_trace = run_piglit(profile, tests, os.path.join(args.work, f"{profile}-traced"),
                                 traced, args.work)
        for test in sorted(native):
            counts["native"][native[test]] += 1
            counts["traced"][under_trace.get(test, "missing")] += 1
            if native[test] != under_trace.get(test):
                differences.append(f"{test}: {native[test]} natively, "
                                   f"{under_trace.get(test, 'missing')} traced")

    trace_files = glob.glob(os.path.join(traces, "*.gltrace"))
    unreadable = []
    for trace in trace_files:
        r = subprocess.run([f"{build}/bin/gltrace", "info", trace], capture_output=True, text=True)
        if r.returncode != 0:
            unreadable.append(f"{trace}: {r.stderr.strip()}")

    for run in ("native", "traced"):
        print(f"{run}: " + ", ".join(f"{k} {v}" for k, v in sorted(counts[run].items())))
    print(f"traces written: {len(trace_files)}, unreadable: {len(unreadable)}")
    for line in differences + unreadable:
        print("  DIFFERENT: " + line)
    total = sum(counts["native"].values())
    failed = len(differences) + len(unreadable)
    print(f"{total - len(differences)} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
