#!/usr/bin/env python3
"""The dependency direction of DESIGN.md ("arrows point one way"), checked at
every build: what each library under src/ may include from the others.

  check_layering.py SRC_DIR [STAMP]

A library is a directory of src/; its files may include headers of the
libraries listed for it in ALLOWED (a directory, or one header of it) and
their own. src/replay, the engine, includes no GL header at all. A new
directory must be placed in the table. Exits 1 with one line per breach.
"""

import os
import re
import sys

# The generated API headers (gltrace/api/*.h) and include/gltrace are open to
# all but the engine.
ALLOWED = {
    "common": set(),
    "protowire": set(),
    "command_line": set(),
    "settings": {"common"},
    # gl_loader: the real driver, opened and resolved for dispatch, glreplay
    # and surface; the trace layer takes only its call spelling.
    "gl_loader": {"common"},
    "dispatch": {"common", "gl_loader"},
    "layers": {"common", "settings", "dispatch"},
    "interposer": {"common", "dispatch", "layers", "settings"},
    "format": {"common", "protowire"},
    "control": {"common", "protowire"},
    # textformat: values as text, for the dumper and the trace layer's text
    # modes alike (DESIGN.md: capture never decodes what it encoded).
    "textformat": {"common"},
    "consumers": {"common", "format", "protowire", "textformat"},
    # glstate: reading and snapshotting a context through any GL_CALL source.
    "glstate": {"common", "format", "gl_loader/call.h"},
    "trace": {"common", "control", "format", "glstate", "protowire", "settings", "textformat",
              "gl_loader/call.h"},
    "replay": {"common"},
    "glreplay": {"common", "format", "consumers", "glstate", "replay", "gl_loader", "command_line"},
    "surface": {"common", "format", "consumers", "replay", "glreplay", "gl_loader",
                "command_line"},
    "view": {"common", "format", "consumers"},
    # check: runs replays as child processes; takes glreplay's driver choice
    # and image tolerance, and gl_loader to ask the driver its name.
    "check": {"common", "format", "consumers", "glreplay", "gl_loader"},
    # diverge: runs replays and state workers as child processes (the
    # viewer's WorkerProcess and trace model), compares their images.
    "diverge": {"common", "consumers", "glreplay/glreplay.h", "glreplay/image_tolerance.h", "view"},
    "cli": {"common", "command_line", "settings", "format", "control", "consumers", "glreplay", "surface", "view",
            "check", "diverge"},
}

INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([^">]+)[">]', re.M)
GL_HEADER = re.compile(r"^(GLES\d?|EGL|GL|KHR)/")
SOURCE = (".h", ".hpp", ".cpp", ".cc", ".c", ".inc")


def breaches(src):
    found = []
    libraries = sorted(d for d in os.listdir(src) if os.path.isdir(os.path.join(src, d)))
    for library in libraries:
        if library not in ALLOWED:
            found.append(f"src/{library}: a library the table of {sys.argv[0]} does not place")
            continue
        allowed = ALLOWED[library] | {library}
        for root, _, files in os.walk(os.path.join(src, library)):
            for name in sorted(files):
                if not name.endswith(SOURCE):
                    continue
                path = os.path.join(root, name)
                with open(path, encoding="utf-8", errors="replace") as f:
                    text = f.read()
                where = os.path.relpath(path, os.path.dirname(src))
                for header in INCLUDE.findall(text):
                    if library == "replay" and (GL_HEADER.match(header) or
                                                header.startswith("gltrace/")):
                        found.append(f"{where}: includes {header}: the replay engine knows no GL")
                    top = header.split("/", 1)[0]
                    if "/" not in header or top not in ALLOWED or top in allowed:
                        continue  # a system header, or one of its own or its dependencies'
                    if header not in allowed:
                        found.append(f"{where}: includes {header}: src/{library} may not depend "
                                     f"on src/{top}")
    return found


def main():
    src = sys.argv[1]
    found = breaches(src)
    for line in found:
        print(f"layering: {line}", file=sys.stderr)
    if found:
        return 1
    if len(sys.argv) > 2:
        with open(sys.argv[2], "w", encoding="utf-8") as f:
            f.write("ok\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
