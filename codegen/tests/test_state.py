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
        _, cls.functions = registry.read_gl(GL_XML)
        cls.gl_enums = registry.read_gl.enums
        cls.egl_enums = registry.read_egl_enums(EGL_HEADERS)

    def read(self, entries, setters=(), part=0):
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            json.dump({"state": entries, "setters": list(setters)}, f)
        try:
            return state.read(f.name, self.gl_enums, self.egl_enums, self.functions)[part]
        finally:
            os.unlink(f.name)

    def test_the_table_reads_and_has_what_the_viewer_shows(self):
        entries, uniform_types, setters = state.read(TABLE, self.gl_enums, self.egl_enums,
                                                     self.functions)
        keys = {(e["group"], e["key"]) for e in entries}
        for wanted in [("kPipeline", "viewport"), ("kBindings", "current_program"),
                       ("kTexture", "width"), ("kVertexAttrib", "stride"),
                       ("kEgl", "context_client_version"), ("kAttachment", "object")]:
            self.assertIn(wanted, keys)
        viewport = next(e for e in entries if e["key"] == "viewport")
        self.assertEqual((viewport["pname"], viewport["count"]), (0x0BA2, 4))
        mat4 = next(u for u in uniform_types if u["type"] == "GL_FLOAT_MAT4")
        self.assertEqual((mat4["components"], mat4["read"]), (16, "kFloat"))
        text = state.state_table_inc(entries, uniform_types, setters, emit.HEADER)
        self.assertIn('"viewport", 0xBA2u /* GL_VIEWPORT */, StateQuery::kInteger, 4', text)
        self.assertIn("{api::kFn_glViewport, {kSetterArgs.data() + 0, 4}}", text)
        self.assertIn("{SetterArg::kConstant, 0, 0, 0x404u},  // GL_FRONT", text)
        by_key = {e["key"]: e["set"] for e in entries if e["group"] == "kPipeline"}
        self.assertEqual((by_key["blend"], by_key["blend_src_rgb"], by_key["read_buffer"]),
                         ("kEnable", "kSetter", "kNotByContext"))

    def test_the_pipeline_has_what_a_snapshot_restores(self):
        entries = state.read(TABLE, self.gl_enums, self.egl_enums, self.functions)[0]
        keys = {e["key"] for e in entries if e["group"] == "kPipeline"}
        for wanted in ["unpack_image_height", "unpack_skip_rows", "unpack_skip_pixels",
                       "unpack_skip_images", "pack_row_length", "pack_skip_rows",
                       "pack_skip_pixels", "fragment_shader_derivative_hint",
                       "polygon_offset_fill", "sample_mask_value"]:
            self.assertIn(wanted, keys)

    def test_setters_are_checked_against_the_registry_and_cover_the_pipeline(self):
        entries = [{"group": "pipeline", "key": "func", "enum": "GL_STENCIL_FUNC",
                    "get": "integer", "kind": "enum"},
                   {"group": "pipeline", "key": "ref", "enum": "GL_STENCIL_REF",
                    "get": "integer", "kind": "int"},
                   {"group": "pipeline", "key": "mask", "enum": "GL_STENCIL_VALUE_MASK",
                    "get": "integer", "kind": "int"},
                   {"group": "pipeline", "key": "test", "enum": "GL_STENCIL_TEST",
                    "get": "enabled", "kind": "bool"},
                   {"group": "pipeline", "key": "viewport", "enum": "GL_VIEWPORT",
                    "get": "integer", "count": 4, "kind": "int"},
                   {"group": "pipeline", "key": "read_buffer", "enum": "GL_READ_BUFFER",
                    "get": "integer", "kind": "enum", "since": "3.0", "set": "framebuffer"},
                   {"group": "bindings", "key": "vao", "enum": "GL_VERTEX_ARRAY_BINDING",
                    "get": "integer", "kind": "object", "class": "vertex_array"}]
        good = ["glStencilFuncSeparate(GL_FRONT, func, ref, mask)", "glViewport(viewport)"]
        setters = self.read(entries, good, part=2)
        self.assertEqual(setters[0]["args"], [("constant", 0x404, "GL_FRONT"), ("entry", 0, 0),
                                              ("entry", 1, 0), ("entry", 2, 0)])
        self.assertEqual(setters[1]["args"], [("entry", 4, c) for c in range(4)])
        stencil = "glStencilFuncSeparate(GL_FRONT, func, ref, mask)"
        for bad, why in [
                (["glStencilFuncSeparate(GL_FRONT, func, reff, mask)"], "reff is no pipeline"),
                (["glStencilFuncSeparate(GL_FRONT, func, ref, vao)"], "vao is an entry of bindings"),
                (["glStencilFuncSeparate(GL_FRONTT, func, ref, mask)"], "GL_FRONTT is not in"),
                (["glStencilFuncSeparateX(GL_FRONT, func, ref, mask)"], "no GLES function"),
                (["glStencilFunc(GL_FRONT, func, ref, mask)"], "takes 3 .* arguments fill 4"),
                (["glStencilFuncSeparate(func, ref, mask)"], "takes 4 .* arguments fill 3"),
                (["glViewport(viewport, func)"], "takes 4 parameters, the arguments fill 5"),
                ([stencil], "viewport is set by no setter"),
                ([stencil, stencil.replace("FRONT", "BACK")], "set by .* already"),
                (["glHint(GL_GENERATE_MIPMAP_HINT, test)"], "glEnable / glDisable set it"),
                (["glHint(GL_READ_BUFFER, read_buffer)"], "marked set elsewhere"),
                (["glDepthRangef(GL_FRONT, func)"], "parameter 0 .* cannot take GL_FRONT"),
                (["glViewportIndexedfOES(0, viewport)"], "only extensions"),
                (["glStencilFuncSeparate GL_FRONT"], "wants 'glName"),
                (["glPixelStorei(GL_UNPACK_ALIGNMENT, 4)"], "sets no entry")]:
            # A setter's own faults fail before coverage is checked.
            with self.subTest(bad=bad), self.assertRaisesRegex(state.StateError, why):
                self.read(entries, bad)
        with self.assertRaisesRegex(state.StateError, "set is for pipeline"):
            self.read([dict(entries[6], set="framebuffer")])
        with self.assertRaisesRegex(state.StateError, "set wants"):
            self.read([dict(entries[5], set="somewhere")])
        with self.assertRaisesRegex(state.StateError, "GLES 3.1, its entries since 2.0"):
            self.read([dict(entries[1], key="sample_mask_value")],
                      ["glSampleMaski(0, sample_mask_value)"])
        with self.assertRaisesRegex(state.StateError, "different since"):
            self.read([entries[1], dict(entries[2], since="3.0")],
                      ["glStencilFuncSeparate(GL_FRONT, GL_NEVER, ref, mask)"])

    def test_names_missing_from_the_registry_are_refused(self):
        good = {"group": "bindings", "key": "k", "enum": "GL_VIEWPORT", "get": "integer",
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
                state.read(f.name, self.gl_enums, self.egl_enums, self.functions)
        finally:
            os.unlink(f.name)
        with self.assertRaisesRegex(state.StateError, "twice"):
            self.read([good, good])
        # EGL queries name EGL enums.
        with self.assertRaisesRegex(state.StateError, "not in the registry"):
            self.read([dict(good, get="egl_context")])


if __name__ == "__main__":
    unittest.main()
