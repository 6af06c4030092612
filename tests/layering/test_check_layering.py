"""tools/check_layering.py on small src/ trees: the breaches it must name."""

import os
import subprocess
import sys
import tempfile
import unittest

CHECK = os.path.join(os.path.dirname(__file__), "..", "..", "tools", "check_layering.py")


def check(files):
    """(exit status, stderr) of the check on a src/ tree holding files."""
    with tempfile.TemporaryDirectory() as src:
        for path, text in files.items():
            os.makedirs(os.path.join(src, os.path.dirname(path)), exist_ok=True)
            with open(os.path.join(src, path), "w", encoding="utf-8") as f:
                f.write(text)
        result = subprocess.run([sys.executable, CHECK, src], capture_output=True, text=True,
                                check=False)
        return result.returncode, result.stderr


class CheckLayering(unittest.TestCase):
    def test_allowed_includes_pass(self):
        status, err = check({"consumers/dump.cpp": '#include "format/reader.h"\n#include <vector>\n',
                             "format/reader.h": '#include "common/log.h"\n'})
        self.assertEqual((status, err), (0, ""))

    def test_an_include_against_the_arrows_is_named(self):
        status, err = check({"format/reader.cpp": '#include "consumers/dump.h"\n'})
        self.assertEqual(status, 1)
        self.assertIn("format/reader.cpp: includes consumers/dump.h: src/format may not depend on "
                      "src/consumers", err)

    def test_the_command_line_sits_below_the_libraries_that_use_it(self):
        self.assertEqual(check({"glreplay/a.cpp": '#include "command_line/command_line.h"\n'})[0], 0)
        self.assertEqual(check({"glreplay/a.cpp": '#include "cli/commands.h"\n'})[0], 1)

    def test_the_engine_includes_no_gl(self):
        status, err = check({"replay/engine.cpp": "#include <GLES3/gl3.h>\n"})
        self.assertEqual(status, 1)
        self.assertIn("the replay engine knows no GL", err)

    def test_a_new_library_must_be_placed(self):
        status, err = check({"newlib/a.cpp": "\n"})
        self.assertEqual(status, 1)
        self.assertIn("src/newlib: a library", err)


if __name__ == "__main__":
    unittest.main()
