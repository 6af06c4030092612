#!/usr/bin/env python3
"""gltrace check on a corpus of real traces, on Mesa's three GLES drivers
here (llvmpipe, softpipe, zink on lavapipe): the cross-driver table and the
corpus must-shows of issue 26.

  check_corpus.py BUILD_DIR WORK_DIR [--drivers llvmpipe,softpipe,zink] [--reuse]

The corpus (WORK_DIR/corpus/traces): the demo, each glmark2-es2 scene on its
own, the real programs of tests/real_apps/real_apps.py (--set all), and two
test apps: gltrace-glsl-320 (GLSL ES 3.20, which softpipe lacks) and
gltrace-long-loop (a fragment loop llvmpipe cuts at 65535 iterations and
softpipe runs to its end: a hang there). Every trace is captured with
`--framebuffer swap` on llvmpipe; --reuse keeps traces already there.

Then:
 1. the table: each trace checked on each driver against its own captured
    images with check's default tolerance (no expectations yet): identical,
    within the tolerance or different, with the differing pixels, the largest
    channel difference and the PSNR of each;
 2. `--update` on each driver records its expectations (the hang labelled on
    softpipe), and a second run on each driver passes;
 3. on llvmpipe: two traces' goldens swapped and checksums spoilt fail with
    their difference images kept; a trace labelled flaky with a spoilt
    checksum is flaky, not a failure; the JUnit XML is read by
    python3-junitparser; four shards, each by another CI convention, merge to
    the report of one run; `--update` after the spoilt goldens makes the next
    run pass;
 4. on softpipe, the long loop unlabelled is a hang within its timeout.
 5. each frame the table reports different: `gltrace diverge` against
    llvmpipe (the capture's driver) names where the drivers part.
Prints the table and one PASS/FAIL line per must-show; exits 1 on a FAIL.
"""

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import tomllib

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "real_apps"))
import real_apps  # noqa: E402  (its Xvfb, its program list)

DEFAULT_TOLERANCE = "channel=16,pixels=0.5%,edges"
LOOP_TIMEOUT = 20
results = []


def say(ok, what, detail=""):
    results.append(ok)
    print(f"{'PASS' if ok else 'FAIL'}: {what}" + (f" ({detail})" if detail else ""), flush=True)


def run(cmd, env, check=False, **kw):
    p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, **kw)
    if check and p.returncode != 0:
        sys.exit(f"check_corpus.py: {' '.join(cmd)} failed ({p.returncode}):\n{p.stdout[-3000:]}")
    return p


def capture(gltrace, trace, argv, env):
    p = run([gltrace, "trace", "--framebuffer", "swap", "-o", trace, "--"] + argv, env)
    if p.returncode != 0 or not os.path.exists(trace):
        print(f"  {os.path.basename(trace)}: capture failed:\n{p.stdout[-1500:]}")
        return False
    return True


def build_corpus(build, work, env, reuse):
    gltrace = os.path.join(build, "bin", "gltrace")
    traces = os.path.join(work, "corpus", "traces")
    os.makedirs(traces, exist_ok=True)
    names = []

    def want(name):
        names.append(name)
        return not (reuse and os.path.exists(os.path.join(traces, name + ".gltrace")))

    if want("demo"):
        capture(gltrace, os.path.join(traces, "demo.gltrace"),
                [os.path.join(build, "bin", "gltrace-demo"), "--frames", "30"], env)
    xvfb = real_apps.Xvfb(env)
    try:
        x11 = dict(env, DISPLAY=xvfb.display)
        for scene in real_apps.GLMARK2_SCENES:
            if want("glmark2-" + scene):
                capture(gltrace, os.path.join(traces, f"glmark2-{scene}.gltrace"),
                        ["glmark2-es2", "-s", "320x240", "-b", f"{scene}:duration=0.5"], x11)
    finally:
        xvfb.close()
    # The real programs as real_apps.py traces them (it replays them too);
    # not those that render through GLX (desktop GL: issue 28).
    ra = os.path.join(work, "real_apps")
    # Nor the off-screen download pipeline: no frame ends, no image to judge
    # (a known failure of real_apps.py).
    apps = [a for a in real_apps.APPS
            if not a.name.startswith("glmark2") and not a.name.endswith("-glx") and
            a.name != "gst-gleffects-download"]
    missing = [a.name for a in apps
               if not (reuse and os.path.exists(os.path.join(ra, a.name + ".gltrace")))]
    if missing:
        run([sys.executable, os.path.join(HERE, "..", "tests", "real_apps", "real_apps.py"),
             build, ra, "--only"] + missing, env)
    for a in apps:
        src = os.path.join(ra, a.name + ".gltrace")
        if os.path.exists(src):
            shutil.copyfile(src, os.path.join(traces, a.name + ".gltrace"))
            names.append(a.name)
    if want("glsl-320"):
        capture(gltrace, os.path.join(traces, "glsl-320.gltrace"),
                [os.path.join(build, "bin", "gltrace-glsl-320"), "--frames", "3"], env)
    if want("long-loop"):  # last: its softpipe label is appended to the file
        capture(gltrace, os.path.join(traces, "long-loop.gltrace"),
                [os.path.join(build, "bin", "gltrace-long-loop"), "--frames", "2"], env)
    return [n for n in names if os.path.exists(os.path.join(traces, n + ".gltrace"))]


def expectations(names, hashes=None):
    text = f'tolerance = "{DEFAULT_TOLERANCE}"\ntimeout = 600\n'
    for n in names:
        text += f'\n[[traces]]\nname = "{n}"\npath = "traces/{n}.gltrace"\n'
        if hashes:
            text += f'hash = "{hashes[n]}"\n'
        if n == "long-loop":
            text += f"timeout = {LOOP_TIMEOUT}\n"
    return text


def first_divergence(gltrace, trace, driver, out, env):
    """diverge's first finding between llvmpipe and `driver`, as one line
    ("" when it found none)."""
    report_file = out + ".json"
    run([gltrace, "diverge", trace, "--driver", "llvmpipe", "--driver", driver, "-o", out,
         "--json", report_file], env)
    try:
        with open(report_file) as f:
            r = json.load(f)
    except (OSError, ValueError):
        return ""
    for key, finding in (("results", (r.get("results", {}).get("first") or [None])[0]),
                         ("state", r.get("state")), ("draw", r.get("draw"))):
        if finding:
            what = "; ".join(finding.get("differences", [])[:2])
            metrics = finding.get("metrics")
            if key == "draw" and metrics:
                what = f"{metrics.get('pixels')}px, PSNR {metrics.get('psnr', 0):.1f}dB"
            return f"{key} at call {finding['call']} {finding['function']}: {what}"[:300]
    return ""


def check(gltrace, args, env):
    return run([gltrace, "check"] + args, env)


def report(path):
    with open(path) as f:
        return json.load(f)


def comparable(rep):
    return [(r["name"], r["status"], r["message"],
             [(f["frame"], f["verdict"], f["checksum"]) for f in r["frames"]])
            for r in rep["results"]]


def junit_counts(path):
    """(tests, failures, errors, skipped) as python3-junitparser (Debian's
    python3, which it is installed for) reads them."""
    code = ("import sys\nfrom junitparser import JUnitXml\n"
            "s = next(iter(JUnitXml.fromfile(sys.argv[1])))\n"
            "print(s.tests, s.failures, s.errors, s.skipped)\n")
    out = subprocess.run(["/usr/bin/python3", "-c", code, path], stdout=subprocess.PIPE,
                         text=True, check=True).stdout.split()
    return tuple(int(x) for x in out)


def add_label(text, name, device, label, note):
    """A label for one trace on one device, in a table of its own before the
    next trace (the trace must have no expectation table for the device)."""
    start = text.index(f'name = "{name}"')
    end = text.find("\n[[traces]]", start)
    end = len(text) if end < 0 else end
    table = f'\n[traces.expect.{device}]\nlabel = "{label}"\nnote = "{note}"\n'
    return text[:end].rstrip("\n") + "\n" + table + text[end:]


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("build")
    ap.add_argument("work")
    ap.add_argument("--drivers", default="llvmpipe,softpipe,zink")
    ap.add_argument("--reuse", action="store_true", help="keep the traces already captured")
    args = ap.parse_args()
    # A shell's background job ignores SIGINT, and an ignored signal stays
    # ignored in the programs started: SDL then never installs its handler and
    # its programs do not stop at the SIGINT they are stopped by.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    build, work = os.path.abspath(args.build), os.path.abspath(args.work)
    gltrace = os.path.join(build, "bin", "gltrace")
    drivers = args.drivers.split(",")
    xdg = tempfile.mkdtemp(prefix="gltrace-corpus-")
    os.chmod(xdg, 0o700)
    env = real_apps.clean_env(xdg)
    corpus = os.path.join(work, "corpus")

    start = time.monotonic()
    names = build_corpus(build, work, env, args.reuse)
    print(f"corpus: {len(names)} traces in {corpus}/traces ({time.monotonic() - start:.0f} s)")
    say(len(names) >= 20, "a corpus of at least 20 traces", f"{len(names)}")

    # Hashes, as --update records them on a scratch copy.
    scratch = os.path.join(corpus, "scratch.toml")
    with open(scratch, "w") as f:
        f.write(expectations(names))
    check(gltrace, [scratch, "-r", os.path.join(work, "r-scratch"), "--update", "-j", "2",
                    "--timeout", "120"], env)
    with open(scratch, "rb") as f:
        hashes = {t["name"]: t.get("hash", "") for t in tomllib.load(f)["traces"]}
    table_file = os.path.join(corpus, "table.toml")
    with open(table_file, "w") as f:
        f.write(expectations(names, hashes))

    # 1. The table: against the traces' own images, default tolerance.
    table = {}
    for d in drivers:
        out = os.path.join(work, f"table-{d}")
        p = check(gltrace, [table_file, "--driver", d, "-r", out, "-j", "2"], env)
        print(p.stdout.splitlines()[0] if p.stdout else "", flush=True)
        for r in report(os.path.join(out, "results.json"))["results"]:
            table[(r["name"], d)] = r
    print(f"\n{'trace':28}" + "".join(f"{d:>34}" for d in drivers))
    for n in names:
        cells = []
        for d in drivers:
            r = table.get((n, d))
            if r is None:
                cells.append("-")
                continue
            f = r["frames"][0] if r["frames"] else {}
            v = f.get("verdict", r["status"])
            if v in ("differs", "within_tolerance"):
                psnr = f"{f['psnr']:.1f}dB" if f.get("psnr") is not None else "inf"
                v += f" {f['pixels']}px max{f['max_channel_difference']} {psnr}"
            elif r["status"] in ("hang", "crash", "error"):
                v = r["status"]
            cells.append(v)
        print(f"{n:28}" + "".join(f"{c:>34}" for c in cells))
    for n in names:
        for d in drivers:
            r = table.get((n, d))
            if r is not None and r["status"] != "pass":
                print(f"  {n} on {d}: {r['status']}: {r['message'][:300]}")
    # Each frame reported different: where diverge finds the drivers part
    # (against llvmpipe, the capture's driver), its first finding.
    unexplained = []
    for n in names:
        for d in drivers:
            r = table.get((n, d))
            # Frames that differ or were not replayed (not traces without
            # images: nothing was compared).
            if d == "llvmpipe" or r is None or r["status"] != "fail" or not (
                    any(f.get("verdict") == "differs" for f in r["frames"])
                    or "not replayed" in r["message"]):
                continue
            cause = first_divergence(gltrace, os.path.join(corpus, "traces", n + ".gltrace"), d,
                                     os.path.join(work, f"diverge-{n}-{d}"), env)
            print(f"  {n} on {d}: diverge: {cause or 'nothing found'}")
            if not cause:
                unexplained.append(f"{n} on {d}")
    say(not unexplained, "no frame differs between the drivers unless diverge finds where",
        ", ".join(unexplained))

    # 2. Expectations of each driver; a second run passes.
    exp = os.path.join(corpus, "traces.toml")
    with open(exp, "w") as f:
        f.write(expectations(names, hashes))
    for d in drivers:
        check(gltrace, [exp, "--driver", d, "-r", os.path.join(work, f"update-{d}"), "--update",
                        "-j", "2"], env)
    if "softpipe" in drivers:
        # What a CI owner labels: nothing of theirs could be recorded there.
        with open(exp) as f:
            text = f.read()
        text = add_label(text, "long-loop", "softpipe", "hang",
                         "softpipe runs the 2^30 iterations llvmpipe cuts at 65535")
        if "gst-glimagesink" in names:
            text = add_label(text, "gst-glimagesink", "softpipe", "broken",
                             "asks for an ES 3.2 context; softpipe has 3.1")
        with open(exp, "w") as f:
            f.write(text)
    for d in drivers:
        out = os.path.join(work, f"pass-{d}")
        p = check(gltrace, [exp, "--driver", d, "-r", out, "-j", "2"], env)
        rep = report(os.path.join(out, "results.json"))
        say(p.returncode == 0, f"{d}: after --update every trace passes",
            ", ".join(f"{k} {v}" for k, v in rep["summary"].items() if v))

    # 3. The must-shows on llvmpipe.
    with open(exp) as f:
        good = f.read()
    golden = re.findall(r'goldens = \["(goldens/glmark2-(?:build|texture)-llvmpipe-f\d+\.png)"\]',
                        good)
    ideas = re.search(r'goldens/glmark2-ideas-llvmpipe-f(\d+)\.png', good)
    ideas_frame = ideas.group(1) if ideas else "0"
    if len(golden) == 2:
        spoilt = good.replace(golden[0], "SWAP").replace(golden[1], golden[0]).replace(
            "SWAP", golden[1])
        for n in ("glmark2-build", "glmark2-texture"):
            spoilt = re.sub(rf'(name = "{n}"(?:.|\n)*?checksums = \[)"xxh3:[0-9a-f]+"',
                            r'\1"xxh3:0"', spoilt, count=1)
        spoilt = re.sub(r'(name = "glmark2-shading"(?:.|\n)*?\[traces\.expect\.llvmpipe\]\n)'
                        r'((?:.|\n)*?checksums = \[)"xxh3:[0-9a-f]+"\]\ngoldens = \["[^"]+"\]',
                        r'\1label = "flaky"\n\2"xxh3:0"]\ngoldens = ["goldens/glmark2-ideas-llvmpipe-f'
                        + ideas_frame + '.png"]', spoilt, count=1)
        with open(exp, "w") as f:
            f.write(spoilt)
        out = os.path.join(work, "spoilt")
        p = check(gltrace, [exp, "--driver", "llvmpipe", "-r", out, "-j", "2"], env)
        rep = report(os.path.join(out, "results.json"))
        by = {r["name"]: r for r in rep["results"]}
        kept = [f.get("difference", "") for n in ("glmark2-build", "glmark2-texture")
                for f in by[n]["frames"]]
        say(p.returncode == 1 and by["glmark2-build"]["status"] == "fail" and
            by["glmark2-texture"]["status"] == "fail" and all(os.path.exists(k) for k in kept),
            "swapped goldens fail with their difference images kept", "; ".join(kept))
        # Kept for what did not pass: the two failures and the flaky one.
        others_kept = [d for d in os.listdir(os.path.join(out, "failed"))
                       if not any(n in d for n in ("glmark2-build", "glmark2-texture",
                                                   "glmark2-shading"))]
        say(not others_kept, "only the images of traces that did not pass are kept",
            str(others_kept))
        say(by["glmark2-shading"]["status"] == "flaky",
            "a trace labelled flaky with a spoilt checksum is not a failure",
            by["glmark2-shading"]["status"] + ": " + by["glmark2-shading"]["message"][:120])
        t = junit_counts(os.path.join(out, "junit.xml"))
        say(t[0] == len(rep["results"]) and t[1] == rep["summary"]["fail"],
            "python3-junitparser reads the JUnit XML", f"tests, failures, errors, skipped = {t}")
        check(gltrace, [exp, "--driver", "llvmpipe", "-r", os.path.join(work, "reupdate"),
                        "--update", "-j", "2"], env)
        p = check(gltrace, [exp, "--driver", "llvmpipe", "-r", os.path.join(work, "reupdated"),
                            "-j", "2"], env)
        say(p.returncode == 0, "--update after the spoilt goldens makes the next run pass",
            p.stdout.strip().splitlines()[-2] if p.stdout else "")
    else:
        say(False, "goldens of glmark2 build and texture recorded", str(golden))

    one = os.path.join(work, "one")
    check(gltrace, [exp, "--driver", "llvmpipe", "-r", one, "-j", "2"], env)
    conventions = [{"GTEST_SHARD_INDEX": "0", "GTEST_TOTAL_SHARDS": "4"},
                   {"CI_NODE_INDEX": "2", "CI_NODE_TOTAL": "4"},
                   {"JOB_COMPLETION_INDEX": "2"}, {}]
    extra = [[], [], ["--shards", "4"], ["--shard", "4/4"]]
    procs = []
    for i, (vars_, more) in enumerate(zip(conventions, extra)):
        procs.append(subprocess.Popen(
            [gltrace, "check", exp, "--driver", "llvmpipe", "-r",
             os.path.join(work, f"shard{i + 1}")] + more,
            env=dict(env, **vars_), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
    for p in procs:
        p.wait()
    merged = os.path.join(work, "merged")
    run([gltrace, "check", "--merge", "-r", merged] +
        [os.path.join(work, f"shard{i}", "results.json") for i in range(1, 5)], env)
    same = comparable(report(os.path.join(merged, "results.json"))) == \
        comparable(report(os.path.join(one, "results.json")))
    say(same, "4 shards (GTEST_*, CI_NODE_*, JOB_COMPLETION_INDEX, --shard) merge to one run's "
        "report", f"{len(comparable(report(os.path.join(one, 'results.json'))))} traces")

    # 4. The hang, unlabelled, on softpipe.
    if "softpipe" in drivers:
        out = os.path.join(work, "hang")
        p = check(gltrace, [table_file, "--driver", "softpipe", "-r", out, "--trace",
                            "long-loop"], env)
        r = report(os.path.join(out, "results.json"))["results"][0]
        say(r["status"] == "hang" and r["seconds"] < LOOP_TIMEOUT + 15,
            f"a replay that hangs is reported as a hang within its {LOOP_TIMEOUT} s timeout",
            f"{r['seconds']:.1f} s: {r['message']}")
    shutil.rmtree(xdg, ignore_errors=True)
    print(f"{sum(results)} passed, {len(results) - sum(results)} failed "
          f"({time.monotonic() - start:.0f} s)")
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
