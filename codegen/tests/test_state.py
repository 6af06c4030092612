"""Checks of the state worker's table reader (spec/gles_state.json)."""

import json
import os
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

from gltrace_codegen import emit, registry, state  # noqa: E402

GL_XML = os.environ.get("GLTRACE_REGISTRY_GL", "/usr/share/khronos-api/gl.xml")
EGL_HEADERS = ["/usr/include/EGL/egl.h", "/usr/include/EGL/eglext.h"]
TABLE = os.path.join(HERE, "..", "..", "spec", "gles_state.json")


class StateTableTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        registry.read_gl(GL_XML)
        cls.gl_enums = registry.read_gl.enums
        cls.egl_enums = registry.read_egl_enums(EGL_HEADERS)

    def read(self, entries):
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            json.dump({"state": entries}, f)
        try:
            return state.read(f.name, self.gl_enums, self.egl_enums)[0]
        finally:
            os.unlink(f.name)

    def test_the_table_reads_and_has_what_the_viewer_shows(self):
        entries, uniform_types = state.read(TABLE, self.gl_enums, self.egl_enums)
        keys = {(e["group"], e["key"]) for e in entries}
        for wanted in [("kPipeline", "viewport"), ("kBindings", "current_program"),
                       ("kTexture", "width"), ("kVertexAttrib", "stride"),
                       ("kEgl", "context_client_version"), ("kAttachment", "object")]:
            self.assertIn(wanted, keys)
        viewport = next(e for e in entries if e["key"] == "viewport")
        self.assertEqual((viewport["pname"], viewport["count"]), (0x0BA2, 4))
        mat4 = next(u for u in uniform_types if u["type"] == "GL_FLOAT_MAT4")
        self.assertEqual((mat4["components"], mat4["read"]), (16, "kFloat"))
        text = state.state_table_inc(entries, uniform_types, emit.HEADER)
        self.assertIn('"viewport", 0xBA2u /* GL_VIEWPORT */, StateQuery::kInteger, 4', text)

    def test_names_missing_from_the_registry_are_refused(self):
        good = {"group": "pipeline", "key": "k", "enum": "GL_VIEWPORT", "get": "integer",
                "kind": "int"}
        self.assertEqual(len(self.read([good])), 1)
        for bad, why in [({"enum": "GL_VIEWPORTT"}, "not in the registry"),
                         ({"get": "glGetSomething"}, "unknown get"),
                         ({"kind": "object"}, "class"),
                         ({"kind": "enum", "enum_group": "NoSuchGroup"}, "enum group"),
                         ({"group": "nowhere"}, "unknown group"),
                         ({"since": "three"}, "MAJOR.MINOR"),
                         ({"count": 0}, "count"),
                         ({"group": "indexed_buffer"}, "limit"),
                         ({"group": "indexed_buffer", "target": "GL_UNIFORM_BUFFER",
                           "limit": "GL_MAX_NOTHING"}, "limit")]:
            with self.assertRaisesRegex(state.StateError, why):
                self.read([dict(good, **bad)])
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            json.dump({"state": [], "uniform_types": [{"type": "GL_FLOAT_VEC5", "components": 5,
                                                       "read": "float"}]}, f)
        try:
            with self.assertRaisesRegex(state.StateError, "uniform type"):
                state.read(f.name, self.gl_enums, self.egl_enums)
        finally:
            os.unlink(f.name)
        with self.assertRaisesRegex(state.StateError, "twice"):
            self.read([good, good])
        # EGL queries name EGL enums.
        with self.assertRaisesRegex(state.StateError, "not in the registry"):
            self.read([dict(good, get="egl_context")])


if __name__ == "__main__":
    unittest.main()
