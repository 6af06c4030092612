"""Checks of the code generator and the id registry (standard library only)."""

import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

from gltrace_codegen import ids, registry, trace, validate  # noqa: E402

GL_XML = os.environ.get("GLTRACE_REGISTRY_GL", "/usr/share/khronos-api/gl.xml")
IDS = os.environ.get("GLTRACE_IDS", os.path.join(HERE, "..", "..", "spec", "function_ids.txt"))
EGL_HEADERS = ["/usr/include/EGL/egl.h", "/usr/include/EGL/eglext.h"]


class RegistryTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.typedefs, cls.gl = registry.read_gl(GL_XML)
        cls.egl = registry.read_egl(EGL_HEADERS)

    def test_every_function_has_a_registered_id(self):
        registered = ids.read(IDS)
        missing = [f.name for f in self.gl + self.egl if f.name not in registered]
        self.assertEqual(missing, [], "run codegen/gen.py --update-ids")

    def test_ids_are_unique_and_positive(self):
        registered = ids.read(IDS)
        self.assertEqual(len(set(registered.values())), len(registered))
        self.assertTrue(all(i > 0 for i in registered.values()))

    def test_egl_core_prototypes_written_without_space_are_read(self):
        names = {f.name: f for f in self.egl}
        self.assertEqual(names["eglQueryString"].ret, "const char *")
        self.assertEqual([p.name for p in names["eglQueryString"].params], ["dpy", "name"])
        self.assertIn("eglGetProcAddress", names)
        self.assertGreaterEqual(len(self.egl), 44)  # egl.h alone has 44

    def test_gles_versions_and_extensions(self):
        by_name = {f.name: f for f in self.gl}
        self.assertIn("GL_VERSION_ES_CM_1_0", by_name["glAlphaFunc"].origins)
        self.assertIn("GL_ES_VERSION_3_2", by_name["glDrawElementsBaseVertex"].origins)
        self.assertIn("glDrawArraysInstancedEXT", by_name)   # a gles2 extension
        self.assertNotIn("glBegin", by_name)                 # desktop GL only
        self.assertEqual(by_name["glShaderSource"].params[2].len, "count")

    def test_size_rules_name_real_parameters(self):
        params = {f"{f.name}.{p.name}" for f in self.gl for p in f.params}
        self.assertEqual(sorted(set(trace.SIZES) - params), [])

    def test_every_core_gles_output_is_sized(self):
        # What a call writes is recorded (and so gets scratch at replay).
        unsized = []
        for f in self.gl:
            if f.name in trace.CUSTOM or not any(o.startswith(("GL_ES_VERSION", "GL_VERSION_ES"))
                                                 for o in f.origins):
                continue
            for p in f.params:
                if "*" in p.type and "const" not in p.type and \
                        trace.value_call(f, p).startswith("unknown_value"):
                    unsized.append(f"{f.name}.{p.name}")
        self.assertEqual(unsized, [])

    def test_size_rules_become_expressions(self):
        by_name = {f.name: f for f in self.gl}
        f = by_name["glGetIntegeri_v"]
        self.assertEqual(trace.value_call(f, f.params[2]),
                         "array_value(data, gltrace::trace::pname_count ( target ))")
        f = by_name["glGetUniformIndices"]
        self.assertEqual(trace.value_call(f, f.params[2]),
                         "strings_value(uniformNames, static_cast<int32_t>("
                         "static_cast<int64_t>(uniformCount)), nullptr)")
        self.assertIsNone(trace._len_expr(f, "unknown_helper(program)"))
        self.assertIsNone(trace._len_expr(f, "program, uniformCount"))

    def test_append_only_assignment(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "ids.txt")
            with open(path, "w") as f:
                f.write("1 glA\n3 glC\n")
            from gltrace_codegen.model import Function
            fns = [Function("glA", "gles", "void"), Function("glB", "gles", "void"),
                   Function("glC", "gles", "void")]
            limit = ids.assign(fns, ids.read(path), path, update=True)
            self.assertEqual([f.id for f in fns], [1, 4, 3])
            self.assertEqual(limit, 5)
            self.assertEqual(ids.read(path), {"glA": 1, "glC": 3, "glB": 4})

    def test_duplicate_ids_are_rejected(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "ids.txt")
            with open(path, "w") as f:
                f.write("1 glA\n1 glB\n")
            with self.assertRaises(SystemExit):
                ids.read(path)

    def test_generator_runs_without_provisional_ids(self):
        with tempfile.TemporaryDirectory() as tmp:
            result = subprocess.run(
                [sys.executable, os.path.join(HERE, "..", "gen.py"), "--gl-xml", GL_XML,
                 *sum((["--egl-header", h] for h in EGL_HEADERS), []), "--ids", IDS, "--out", tmp],
                capture_output=True, text=True, check=True)
            self.assertNotIn("provisional", result.stderr)
            self.assertTrue(os.path.exists(os.path.join(tmp, "entry_points.cpp")))


class ValidateRulesTest(unittest.TestCase):
    """The replay's size rules, read from the registry."""

    @classmethod
    def setUpClass(cls):
        _, gl = registry.read_gl(GL_XML)
        cls.rules = {f.name: validate._rules(f) for f in gl}

    def test_len_expressions_over_the_calls_scalars(self):
        self.assertEqual(self.rules["glBufferData"], ["v.input(2, 1, v.as<GLsizeiptr>(1), 0, true);"])
        self.assertEqual(self.rules["glUniform4fv"],
                         ["v.input(2, sizeof(GLfloat), int64_t{Len{v.as<GLsizei>(1)} * Len{4}}, 0, false);"])

    def test_images_use_the_pixel_store_state_and_may_be_offsets(self):
        upload = self.rules["glTexImage2D"][0]
        self.assertIn("v.unpack_image(", upload)
        self.assertTrue(upload.endswith("GL_PIXEL_UNPACK_BUFFER_BINDING, true);"))  # NULL allowed
        self.assertTrue(self.rules["glTexSubImage2D"][0].endswith(
            "GL_PIXEL_UNPACK_BUFFER_BINDING, false);"))
        self.assertIn("v.pack_image(", self.rules["glReadPixels"][0])

    def test_draws_outputs_and_unsized_pointers(self):
        self.assertEqual(self.rules["glDrawElementsInstanced"], ["v.draw(-1, 1, 2, 3, 4, -1);"])
        self.assertEqual(self.rules["glDrawElementsIndirect"], ["v.indirect(2, 20);"])
        self.assertIn("v.pname_count(", self.rules["glGetIntegerv"][0])
        self.assertEqual(self.rules["glShaderSource"], ["v.strings(2, v.as<GLsizei>(1), 3);"])
        self.assertEqual(self.rules["glVertexAttribPointer"], [])


if __name__ == "__main__":
    unittest.main()
