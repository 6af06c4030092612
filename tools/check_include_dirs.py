#!/usr/bin/env python3
"""Each library exposes only its own headers: no compile command of the build
has all of src/ on its include path, checked at every build.

  check_include_dirs.py SRC_DIR COMPILE_COMMANDS [STAMP]

COMPILE_COMMANDS is the build's compile_commands.json. A library's headers
reach a target through the include root of a library it links
(cmake/include_root.cmake); SRC_DIR itself, or a link to it, as an include
directory (-I, -isystem, -iquote, -idirafter) would open every library's
headers to every target. Exits 1 with one line per source file compiled so.
"""

import json
import os
import shlex
import sys

# Options whose argument is a directory searched for #include, joined to the
# option or as the next argument.
INCLUDE_OPTIONS = ("-I", "-isystem", "-iquote", "-idirafter", "--include-directory")


def include_dirs(arguments):
    """The include directories named in a compiler's arguments, in order."""
    dirs = []
    arguments = iter(arguments)
    for argument in arguments:
        for option in INCLUDE_OPTIONS:
            if argument == option:
                dirs.append(next(arguments, ""))
            elif argument.startswith(option + "=") and option.startswith("--"):
                dirs.append(argument[len(option) + 1:])
            elif argument.startswith(option) and not option.startswith("--"):
                dirs.append(argument[len(option):])
            else:
                continue
            break
    return dirs


def breaches(src, compile_commands):
    """'FILE: ...' for each compile command with src itself on its include path."""
    src = os.path.realpath(src)
    found = []
    for entry in compile_commands:
        arguments = entry.get("arguments") or shlex.split(entry["command"])
        directory = entry.get("directory", "")
        for path in include_dirs(arguments):
            if path and os.path.realpath(os.path.join(directory, path)) == src:
                source = os.path.join(directory, entry["file"])
                where = os.path.relpath(source, os.path.dirname(src))
                if where.startswith(".."):
                    where = source
                found.append(f"{where}: compiled with {path} on its include path, all of src/ "
                             "(a target gets a library's headers by linking it: "
                             "cmake/include_root.cmake)")
                break
    return found


def main():
    if len(sys.argv) not in (3, 4):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    src, commands_path = sys.argv[1], sys.argv[2]
    try:
        with open(commands_path, encoding="utf-8") as f:
            compile_commands = json.load(f)
    except (OSError, ValueError) as error:
        print(f"include dirs: cannot read {commands_path}: {error}", file=sys.stderr)
        return 2
    found = breaches(src, compile_commands)
    for line in found:
        print(f"include dirs: {line}", file=sys.stderr)
    if found:
        return 1
    if len(sys.argv) > 3:
        with open(sys.argv[3], "w", encoding="utf-8") as f:
            f.write("ok\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
