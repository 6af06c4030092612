#!/usr/bin/env python3
"""No hand-written list of GL/EGL functions: what a call is (a draw, a swap, a
frame end, a debug group's push...) is spec/api.toml's to say, and code reads
it from the generated table (gltrace/api/roles.h), checked at every build.

  check_function_lists.py [--stamp FILE] DIR...

Scans the C++ (.h, .cpp, .inc) and JavaScript (.js) files under each DIR for
the forms such a list takes:
  - ids or names of several functions tested in one condition
    (f == kFn_A || f == kFn_B, n == "glA" || n == "glB");
  - a run of three or more case labels on function ids sharing one body that
    names none of them (a set, not a handler per function);
  - several functions' ids or names in one initializer ({kFn_A, kFn_B});
  - a name prefix or pattern: starts_with("glDraw"), rfind("gl", 0), a regex
    or string such as '^gl(Multi)?Draw'.
One function's own use (a hook for glFoo, if (f == kFn_eglMakeCurrent)) is
allowed. Exits 1 with one line per list found.
"""

import os
import re
import sys


CPP = (".h", ".hpp", ".cpp", ".cc", ".inc")
JS = (".js", ".mjs")
_NAME = r"e?gl[A-Z]\w*"
_ID = re.compile(r"\b(?:api::)?kFn_(\w+)")
_LITERAL = re.compile(r"""(["'`])(""" + _NAME + r""")\1""")
_COMPARED = re.compile(r"(?:==|!=)\s*(?:(?:api::)?kFn_(\w+)|[\"'`](" + _NAME + r")[\"'`])|"
                       r"(?:(?:api::)?kFn_(\w+)|[\"'`](" + _NAME + r")[\"'`])\s*(?:==|!=)")
_PREFIX_CALL = re.compile(r"\b(?:starts_with|startsWith|ends_with|endsWith|rfind|find|compare|"
                          r"indexOf|lastIndexOf|substr|match|regex)\s*\(\s*[\"'`](e?gl(?:[A-Z]\w*)?)[\"'`]")
_PATTERN_TEXT = re.compile(r"""(["'`/])\^\(?e?gl[^"'`/\n]*\1""")
_CASE_RUN = re.compile(r"(?:\bcase\s+(?:api::)?kFn_\w+\s*:\s*){3,}")
_ID_LIST = re.compile(r"^\s*(?:(?:api::)?kFn_\w+\s*,\s*)+(?:api::)?kFn_\w+\s*,?\s*$")


def strip_comments(text):
    """The text with // and /* */ comments blanked (strings kept; lines kept)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("\n" * text.count("\n", i, j))
            i = j
        elif c in "\"'`":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def _line(text, offset):
    return text.count("\n", 0, offset) + 1


def lists_in(text):
    """[(line, what)] of the function lists in one source's text."""
    code = strip_comments(text)
    found = []
    # Statements and initializers: the text between ; { and }.
    start = 0
    for m in re.finditer(r"[;{}]|$", code):
        chunk = code[start:m.start()]
        offset = start
        start = m.end()
        compared = {a or b or c or d for a, b, c, d in _COMPARED.findall(chunk)}
        if len(compared) >= 2 and ("||" in chunk or "&&" in chunk):
            found.append((_line(code, offset + len(chunk) - len(chunk.lstrip())),
                          "functions tested as a set: " + ", ".join(sorted(compared))))
            continue
        literals = {name for _, name in _LITERAL.findall(chunk)}
        if len(literals) >= 2 and "," in chunk:
            found.append((_line(code, offset + len(chunk) - len(chunk.lstrip())),
                          "a list of function names: " + ", ".join(sorted(literals))))
        elif _ID_LIST.match(chunk):
            found.append((_line(code, offset + len(chunk) - len(chunk.lstrip())),
                          "a list of function ids: " + ", ".join(sorted(set(_ID.findall(chunk))))))
    for m in _CASE_RUN.finditer(code):
        labels = set(_ID.findall(m.group(0)))
        end = re.compile(r"\bcase\b|\bdefault\b|^\s*}", re.M).search(code, m.end())
        body = code[m.end():end.start() if end else len(code)]
        if not labels & set(_ID.findall(body)):
            found.append((_line(code, m.start()),
                          f"case labels of {len(labels)} functions sharing one body"))
    for m in _PREFIX_CALL.finditer(code):
        found.append((_line(code, m.start()), f"a name prefix test: {m.group(0)}"))
    for m in _PATTERN_TEXT.finditer(code):
        found.append((_line(code, m.start()), f"a name pattern: {m.group(0)}"))
    return sorted(set(found))


def scan(dirs, root):
    """{path relative to root: [(line, what)]} of the files holding lists."""
    result = {}
    for top in dirs:
        for base, subdirs, files in os.walk(top):
            subdirs[:] = sorted(d for d in subdirs if d != "node_modules")
            for name in sorted(files):
                if not name.endswith(CPP + JS):
                    continue
                path = os.path.join(base, name)
                with open(path, encoding="utf-8", errors="replace") as f:
                    found = lists_in(f.read())
                if found:
                    result[os.path.relpath(path, root).replace(os.sep, "/")] = found
    return result


def main(argv):
    stamp, dirs = None, []
    args = iter(argv)
    for a in args:
        if a == "--stamp":
            stamp = next(args, None)
        else:
            dirs.append(a)
    if not dirs or (stamp is None and "--stamp" in argv):
        sys.stderr.write(__doc__)
        return 2
    # Paths are named from the directory holding the first DIR (the tree's root).
    root = os.path.dirname(os.path.abspath(dirs[0]))
    found_any = scan(dirs, root)
    for path, found in found_any.items():
        for line, what in found:
            sys.stderr.write(f"{path}:{line}: {what}\n")
    if found_any:
        sys.stderr.write("check_function_lists: read what a call is from gltrace/api/roles.h "
                         "(spec/api.toml's roles), not from a list of names\n")
        return 1
    if stamp:
        with open(stamp, "w", encoding="utf-8") as f:
            f.write("ok\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
