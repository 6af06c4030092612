"""tools/check_include_dirs.py on small compile_commands.json files: the
commands that put all of src/ on an include path, named by their source."""

import json
import os
import subprocess
import sys
import tempfile
import unittest

CHECK = os.path.join(os.path.dirname(__file__), "..", "..", "tools", "check_include_dirs.py")


def check(make_commands):
    """(exit status, stderr, stamp written) of the check on the compile
    commands make_commands(repo) returns for a repository at repo."""
    with tempfile.TemporaryDirectory() as repo:
        src = os.path.join(repo, "src")
        for library in ("format", "common"):
            os.makedirs(os.path.join(src, library))
        root = os.path.join(repo, "build", "include-roots", "gltrace_format")
        os.makedirs(root)
        os.symlink(os.path.join(src, "format"), os.path.join(root, "format"))
        commands = os.path.join(repo, "build", "compile_commands.json")
        with open(commands, "w", encoding="utf-8") as f:
            json.dump(make_commands(repo), f)
        stamp = os.path.join(repo, "build", "include_dirs.ok")
        result = subprocess.run([sys.executable, CHECK, src, commands, stamp],
                                capture_output=True, text=True, check=False)
        return result.returncode, result.stderr, os.path.exists(stamp)


def entry(repo, source, *arguments):
    """A compile command of source (a path from the repository) as CMake's
    Ninja generator writes it."""
    return {"directory": os.path.join(repo, "build"),
            "command": " ".join(("/usr/bin/c++",) + arguments +
                                ("-o", "x.o", "-c", os.path.join(repo, source))),
            "file": os.path.join(repo, source)}


class CheckIncludeDirs(unittest.TestCase):
    def test_include_roots_pass(self):
        status, err, stamp = check(lambda repo: [
            entry(repo, "src/format/reader.cpp",
                  f"-I{repo}/build/include-roots/gltrace_format", f"-I{repo}/include"),
            entry(repo, "src/common/log.cpp", f"-isystem {repo}/src/format/generated")])
        self.assertEqual((status, err, stamp), (0, "", True))

    def test_src_on_the_include_path_is_named_with_its_file(self):
        status, err, stamp = check(lambda repo: [
            entry(repo, "src/format/reader.cpp", f"-I{repo}/build/include-roots/gltrace_format"),
            entry(repo, "src/view/server.cpp", f"-I{repo}/src")])
        self.assertEqual(status, 1)
        self.assertFalse(stamp)
        self.assertIn("include dirs: src/view/server.cpp: compiled with ", err)
        self.assertIn("all of src/", err)
        self.assertNotIn("reader.cpp", err)

    def test_every_spelling_of_src_is_found(self):
        spellings = ["-I{repo}/src/", "-I {repo}/src", "-isystem {repo}/src",
                     "-iquote {repo}/src", "-idirafter{repo}/src", "-I{repo}/src/common/..",
                     "-I../src", "--include-directory={repo}/src"]
        for spelling in spellings:
            with self.subTest(spelling=spelling):
                status, err, _ = check(lambda repo, spelling=spelling: [
                    entry(repo, "tests/a_test.cpp", spelling.format(repo=repo))])
                self.assertEqual(status, 1, err)
                self.assertIn("tests/a_test.cpp", err)

    def test_a_link_to_src_is_src(self):
        def commands(repo):
            os.symlink(os.path.join(repo, "src"), os.path.join(repo, "build", "all"))
            return [entry(repo, "src/format/reader.cpp", f"-I{repo}/build/all")]

        self.assertEqual(check(commands)[0], 1)

    def test_arguments_lists_are_read_too(self):
        def commands(repo):
            return [{"directory": repo, "arguments": ["cc", "-I", "src", "-c", "a.c"],
                     "file": "a.c"}]

        status, err, _ = check(commands)
        self.assertEqual(status, 1)
        self.assertIn("a.c: compiled with src on its include path", err)

    def test_an_unreadable_file_is_an_error(self):
        result = subprocess.run([sys.executable, CHECK, "src", "/nonexistent/commands.json"],
                                capture_output=True, text=True, check=False)
        self.assertEqual(result.returncode, 2)
        self.assertIn("cannot read /nonexistent/commands.json", result.stderr)


if __name__ == "__main__":
    unittest.main()
