"""Checks of the code generator and the id registry (standard library only)."""

import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

from gltrace_codegen import (  # noqa: E402
    api, emit, ids, lengths, profiles, registry, replay, report, requirements, roles, trace,
    validate)

GL_XML = os.environ.get("GLTRACE_REGISTRY_GL", "/usr/share/khronos-api/gl.xml")
IDS = os.environ.get("GLTRACE_IDS", os.path.join(HERE, "..", "..", "spec", "function_ids.txt"))
EGL_HEADERS = ["/usr/include/EGL/egl.h", "/usr/include/EGL/eglext.h"]
GLX_XML = os.path.join(os.path.dirname(GL_XML), "glx.xml")
API_TABLE = os.path.join(HERE, "..", "..", "spec", "api.toml")
UNCAPTURED_DOC = os.path.join(HERE, "..", "..", "docs", "uncaptured.md")
PROFILES = os.path.join(HERE, "..", "..", "spec", "portable_profiles.toml")


def window_system_functions():
    """EGL's and GLX's functions, as read from the registry."""
    return registry.read_egl(EGL_HEADERS) + registry.read_glx(GLX_XML)


def load_model():
    """(EGL and GLX functions, GL functions) annotated from spec/api.toml."""
    _, gl = registry.read_gl(GL_XML)
    egl = window_system_functions()
    api.load(egl + gl, api.read(API_TABLE), registry.read_gl.enums)
    return egl, gl


class RegistryTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.typedefs, _ = registry.read_gl(GL_XML)
        cls.egl, cls.gl = load_model()

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
        self.assertEqual(by_name["glBegin"].apis, {"gl"})     # desktop GL only
        self.assertEqual(by_name["glDrawArrays"].apis, {"gles1", "gles2", "gl"})
        self.assertIn("glTexStorage2D", by_name)              # GL 4.2 and GLES 3.0
        self.assertNotIn("glVariantPointerEXT", by_name)      # an extension left out
        self.assertEqual(by_name["glShaderSource"].params[2].len, "count")

    def test_every_core_gles_output_is_sized(self):
        # What a call writes is recorded (and so gets scratch at replay).
        unsized = []
        for f in self.gl:
            if not any(o.startswith(("GL_ES_VERSION", "GL_VERSION_ES")) for o in f.origins):
                continue
            for p in f.params:
                if "*" in p.type and "const" not in p.type and \
                        trace.value_call(f, p).startswith("unknown_value"):
                    unsized.append(f"{f.name}.{p.name}")
        self.assertEqual(unsized, [])

    # Capturable pointers that need a hook rather than a length rule
    # (spec/api.toml, "unknown: not captured yet: ..."). This list may only
    # shrink: a new pointer without a rule fails the test below.
    # Desktop GL's: the compatibility profile's arrays other than
    # glVertexPointer, glColorPointer, glNormalPointer and glTexCoordPointer
    # need slots of their own (common/fixed_arrays.h).
    NOT_CAPTURED_YET = {
        "glBinormalPointerEXT.pointer", "glColorPointerEXT.pointer", "glColorPointervINTEL.pointer",
        "glEdgeFlagPointer.pointer", "glEdgeFlagPointerEXT.pointer", "glFogCoordPointer.pointer",
        "glFogCoordPointerEXT.pointer", "glGetSeparableFilter.span", "glGetSeparableFilterEXT.span",
        "glIndexPointer.pointer", "glIndexPointerEXT.pointer", "glInterleavedArrays.pointer",
        "glListDrawCommandsStatesClientNV.indirects", "glMatrixIndexPointerARB.pointer",
        "glMultiTexCoordPointerEXT.pointer", "glNormalPointerEXT.pointer",
        "glNormalPointervINTEL.pointer", "glSecondaryColorPointer.pointer",
        "glSecondaryColorPointerEXT.pointer", "glTangentPointerEXT.pointer",
        "glTexCoordPointerEXT.pointer", "glTexCoordPointervINTEL.pointer",
        "glVertexArrayRangeNV.pointer", "glVertexAttribPointerNV.pointer",
        "glVertexPointerEXT.pointer", "glVertexPointervINTEL.pointer",
        "glVertexWeightPointerEXT.pointer", "glWeightPointerARB.pointer"}

    def test_every_pointer_has_a_capture_rule(self):
        # EGL 1.5, GLES 1.0-3.2 and every extension of the model: a pointer
        # the trace records as Unknown must be uncapturable by nature (a
        # native window, the app's callback argument), or one of the known
        # hooks still to write.
        missing = [f"{name}: {why}" for name, why in report.uncaptured(self.egl + self.gl)
                   if not report.by_nature(why) and name not in self.NOT_CAPTURED_YET]
        self.assertEqual(missing, [], "give each a length rule in spec/api.toml")
        not_yet = {name for name, why in report.uncaptured(self.egl + self.gl)
                   if why.startswith(report.NOT_YET)}
        self.assertEqual(not_yet, self.NOT_CAPTURED_YET)
        with open(API_TABLE, encoding="utf-8") as f:
            self.assertNotIn("not sized yet", f.read())

    def test_uncaptured_page_is_the_tables(self):
        with open(UNCAPTURED_DOC, encoding="utf-8") as f:
            page = f.read()
        self.assertEqual(page, report.uncaptured_md(self.egl + self.gl),
                         "run codegen/gen.py ... --uncaptured-report docs/uncaptured.md")

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
        # The registry's images, 1D to 3D, and glBitmap's bits: one rule.
        f = by_name["glTexSubImage3DOES"]
        self.assertEqual(trace.value_call(f, f.params[10]),
                         "bytes_value(pixels, gltrace::trace::texture_data_size("
                         "gltrace::trace::unpack_image_size(format, type, width, height, depth)))")
        f = by_name["glTexImage1D"]
        self.assertIn("unpack_image_size(format, type, width, 1, 1)",
                      trace.value_call(f, f.params[7]))
        f = by_name["glBitmap"]
        self.assertIn("unpack_image_size(gltrace::desktop_pixels::kColorIndex, "
                      "gltrace::desktop_pixels::kBitmap, width, height, 1)",
                      trace.value_call(f, f.params[6]))
        f = by_name["glClearTexSubImageEXT"]
        self.assertEqual(trace.value_call(f, f.params[10]),
                         "bytes_value(data, gltrace::trace::pixel_bytes ( format , type ))")
        f = by_name["glTexStorageAttribs3DEXT"]
        self.assertEqual(trace.value_call(f, f.params[6]), "attrib_list_value(attrib_list, 0)")
        f = by_name["glMultiDrawElementsEXT"]
        self.assertEqual(trace.value_call(f, f.params[3]),
                         "index_lists_value(indices, count, static_cast<uint32_t>(type), primcount)")
        f = by_name["glDrawArraysIndirect"]
        self.assertEqual(trace.value_call(f, f.params[1]),
                         "pointer_value(reinterpret_cast<const void*>(indirect))")
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
                 *sum((["--egl-header", h] for h in EGL_HEADERS), []), "--ids", IDS,
                 "--api-table", API_TABLE, "--out", tmp],
                capture_output=True, text=True, check=True)
            self.assertNotIn("provisional", result.stderr)
            self.assertTrue(os.path.exists(os.path.join(tmp, "entry_points.cpp")))


class ExplainTest(unittest.TestCase):
    """gen.py --explain FUNCTION: the merged description and its generated uses."""

    def explain(self, name):
        gen = os.path.join(HERE, "..", "gen.py")
        args = [sys.executable, gen, "--explain", name, "--gl-xml", GL_XML, "--ids", IDS,
                "--api-table", API_TABLE]
        for h in EGL_HEADERS:
            args += ["--egl-header", h]
        return subprocess.run(args, capture_output=True, text=True, check=False)

    def test_a_draw(self):
        result = self.explain("glDrawElements")
        self.assertEqual(result.returncode, 0, result.stderr)
        out = result.stdout
        self.assertIn("glDrawElements (gles, id ", out)
        self.assertIn("  roles: draw\n", out)
        self.assertIn("run-time flags (gltrace/api/roles.h): kRoleDraw | kRoleCapturesDraw | "
                      "kRoleThreadBound | kRoleGpuWork\n", out)
        self.assertIn("done = capture_after_draw; idle = note_unrecorded_draw", out)
        self.assertIn("    indices: const void *: kind void, length 'index_bytes(count, type)' "
                      "(spec/api.toml; registry len= 'COMPSIZE(count,type)'), role indices, "
                      "offset into GL_ELEMENT_ARRAY_BUFFER_BINDING when bound\n", out)
        self.assertIn("    gltrace/api/trace_wrappers.inc: PFN_gltrace_glDrawElements, "
                      "idle_glDrawElements, trace_glDrawElements\n", out)
        self.assertIn("    gltrace/api/validate_rules.inc: check_glDrawElements\n", out)
        # Not glDrawElementsInstanced's and the like.
        self.assertNotIn("Instanced", out)

    def test_hand_written_parts_and_unknown_names(self):
        out = self.explain("eglMakeCurrent").stdout
        self.assertIn("replay: by hand (src/glreplay/egl_calls.cpp): the replay's own surfaces",
                      out)
        self.assertIn("exported by hand: hands out gltrace's entry points",
                      self.explain("eglGetProcAddress").stdout)
        self.assertIn("idle_done = live_context_switch_point", out)
        self.assertIn("spec/api.toml: [functions.eglMakeCurrent]", out)
        result = self.explain("glNoSuchCall")
        self.assertNotEqual(result.returncode, 0)
        self.assertIn("glNoSuchCall is no EGL or GLES function", result.stderr)


class LengthsTest(unittest.TestCase):
    """gltrace_codegen/lengths.py: the one reading of a length rule."""

    def test_tokens_know_helpers_and_their_arguments(self):
        tokens = lengths.parse("numCoords * path_coord_bytes(coordType) + (n)",
                               {"path_coord_bytes"})
        self.assertEqual([(t.kind, t.text, t.in_call, t.closes_call) for t in tokens],
                         [("name", "numCoords", False, False), ("op", "*", False, False),
                          ("helper", "path_coord_bytes", False, False),
                          ("(", "(", False, False), ("name", "coordType", True, False),
                          (")", ")", False, True), ("op", "+", False, False),
                          ("(", "(", False, False), ("name", "n", False, False),
                          (")", ")", False, False)])

    def test_what_is_no_expression(self):
        for text in ("", "a,b", "f(a", "a)", "n[2]", "EGL_NONE-terminated x.y"):
            self.assertIsNone(lengths.parse(text, {"f"}), text)
        self.assertIsNone(lengths.parse("f * 2", {"f"}))  # a helper not called
        # Without helpers, a name's "(" is a plain parenthesis, its comma none.
        self.assertIsNone(lengths.parse("at_most(a, b)"))

    def test_whole_calls(self):
        self.assertEqual(lengths.call("COMPSIZE(format,type,width,height)"),
                         ("COMPSIZE", ("format", "type", "width", "height")))
        self.assertEqual(lengths.call("COMPSIZE()"), ("COMPSIZE", ()))
        self.assertEqual(lengths.call("at_most(num, max)"), ("at_most", ("num", "max")))
        for text in ("n*4", "f(a)*g(b)", "f(a)+1", "f(2)", "f(a,)", "count"):
            self.assertIsNone(lengths.call(text), text)


class ValidateRulesTest(unittest.TestCase):
    """The replay's size rules, read from the registry."""

    @classmethod
    def setUpClass(cls):
        _, gl = load_model()
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

    def test_table_helpers_the_replay_can_compute(self):
        # One texel of format and type, NULL allowed (it clears to zero).
        self.assertEqual(self.rules["glClearTexImageEXT"],
                         ["v.input(4, 1, int64_t{Len{gltrace::pixel_bytes ( v.as<GLenum>(2) , "
                          "v.as<GLenum>(3) )}}, 0, true);"])
        self.assertEqual(self.rules["glTexStorageAttribs2DEXT"], ["v.attrib_list(5, sizeof(GLint), 0);"])
        self.assertEqual(self.rules["glMultiDrawArraysIndirectEXT"], ["v.indirect(1, 16);"])
        self.assertIn("v.unpack_image(", self.rules["glTexSubImage3DOES"][0])
        self.assertIn("v.index_lists(3, 1, 2, 4);", self.rules["glMultiDrawElementsEXT"])


class ApiTableTest(unittest.TestCase):
    """spec/api.toml: what it gives the model, and the mistakes it refuses."""

    @classmethod
    def setUpClass(cls):
        egl, gl = load_model()
        cls.fn = {f.name: f for f in egl + gl}

    def param(self, function, name):
        return next(p for p in self.fn[function].params if p.name == name)

    def test_kinds_from_types_registry_classes_and_overrides(self):
        self.assertEqual(self.param("glBindBuffer", "target").kind, "enum")
        self.assertEqual(self.param("glClear", "mask").kind, "bitmask")
        self.assertEqual((self.param("glBindBuffer", "buffer").kind,
                          self.param("glBindBuffer", "buffer").cls), ("name", "buffer"))
        self.assertEqual((self.param("eglMakeCurrent", "draw").kind,
                          self.param("eglMakeCurrent", "draw").cls), ("handle", "surface"))
        timeout = self.param("eglClientWaitSync", "timeout")
        self.assertEqual((timeout.kind, timeout.rep), ("time", "uint"))
        # An EGLint that names an EGL enum keeps its signed recording.
        attribute = self.param("eglQuerySurface", "attribute")
        self.assertEqual((attribute.kind, attribute.rep), ("egl_enum", "sint"))
        self.assertEqual(self.fn["eglGetError"].result.kind, "egl_enum")
        self.assertEqual(self.param("eglChooseConfig", "attrib_list").length,
                         "EGL_NONE-terminated")

    def test_roles_effects_and_hand_written_parts(self):
        self.assertIn("draw", self.fn["glDrawElementsIndirect"].roles)
        self.assertEqual(self.param("glDrawElementsIndirect", "indirect").bytes, 20)
        self.assertEqual(self.param("glGenTextures", "textures").effect, "creates")
        self.assertEqual(self.fn["glCreateShader"].result.cls, "shader")
        self.assertEqual(self.param("glUniform4fv", "location").role, "uniform_location")
        self.assertEqual(self.param("glProgramPathFragmentInputGenNV", "location").role, "")
        self.assertEqual(self.fn["glDrawArrays"].hooks["post"],
                         ["record_client_arrays", "record_surface_resize"])
        self.assertIn("export", self.fn["eglGetProcAddress"].custom)
        self.assertTrue(self.fn["glGetError"].replay_skip)
        self.assertEqual(self.param("glGetIntegeri_v", "data").length, "pname_count(target)")

    def wrapper(self, name):
        """The generated text of trace_<name> (and record_<name>)."""
        import re
        text, _ = trace.trace_wrappers_inc(list(self.fn.values()))
        return "".join(re.findall(rf"^(?:void record_{name}\(|[^\n]* trace_{name}\().*?^}}\n",
                                  text, re.M | re.S))

    def test_idle_hooks_get_an_idle_table_wrapper(self):
        # Draws are noted on live tracing's idle table (an off-screen
        # program's glFinish ends a frame only after a draw): the hook, then
        # the driver, nothing recorded; no other function is in that table.
        text, decls = trace.trace_wrappers_inc(list(self.fn.values()))
        start = text.index("void idle_glDrawArrays(")
        body = text[start:text.index("\n}\n", start)]
        self.assertIn("note_unrecorded_draw();\n  reinterpret_cast<", body)
        self.assertNotIn("CallRecorder", body)
        self.assertIn("void note_unrecorded_draw();", decls)
        table = text[text.index("kIdleWrappers[] = {"):]
        table = table[:table.index("};")]
        named = {f.name for f in self.fn.values() if f.hooks.get("idle")}
        self.assertIn("glDrawElementsBaseVertex", named)
        self.assertNotIn("glFinish", named)
        # Switch points (swaps, context switches, an off-screen program's
        # glFinish and read-backs): the driver, then the idle_done hook, the
        # result returned.
        done = {f.name for f in self.fn.values() if f.hooks.get("idle_done")}
        self.assertEqual(done, {"eglSwapBuffers", "eglSwapBuffersWithDamageKHR",
                                "eglSwapBuffersWithDamageEXT", "eglMakeCurrent", "glFinish",
                                "glReadPixels", "glReadnPixels", "glReadnPixelsEXT",
                                "glReadnPixelsKHR", "glXSwapBuffers", "glXMakeCurrent",
                                "glXMakeContextCurrent", "glXMakeCurrentReadSGI"})
        start = text.index("EGLBoolean idle_eglSwapBuffers(")
        body = text[start:text.index("\n}\n", start)]
        self.assertRegex(body, r"EGLBoolean result = reinterpret_cast<[^\n]*\);\n"
                               r"  live_swap_point\(\);\n  return result;$")
        self.assertIn("void live_unrecorded_finish();", decls)
        # Calls that make or delete EGL and GLX contexts, glLinkProgram (the
        # shaders it linked with) and compressed uploads (their bytes) tell
        # the object list in both tables (GL objects too, given the table's
        # classes: below).
        compressed = {f.name for f in self.fn.values() if "compressed_upload" in f.roles}
        self.assertEqual(compressed, {"glCompressedTexImage2D", "glCompressedTexImage3D",
                                      "glCompressedTexImage3DOES", "glCompressedTexSubImage2D",
                                      "glCompressedTexSubImage3D", "glCompressedTexSubImage3DOES"})
        # EGL images and their siblings (what shares an image's storage).
        siblings = {f.name for f in self.fn.values()
                    if {"image_texture", "image_renderbuffer", "defines_texture",
                        "defines_renderbuffer"} & set(f.roles)}
        self.assertIn("glEGLImageTargetTexture2DOES", siblings)
        self.assertIn("glRenderbufferStorage", siblings)
        images = {"eglCreateImage", "eglCreateImageKHR", "eglDestroyImage", "eglDestroyImageKHR"}
        tracked = {"eglCreateContext", "eglDestroyContext", "glXCreateContext",
                   "glXCreateNewContext", "glXCreateContextAttribsARB", "glXDestroyContext",
                   "glLinkProgram"} | compressed
        self.assertEqual(table.count("&idle_"), len(named | done | tracked | siblings | images))
        start = text.index("EGLImageKHR idle_eglCreateImageKHR(")
        body = text[start:text.index("\n}\n", start)]
        self.assertIn("note_image_created(result, dpy, ctx, target, buffer, attrib_list);", body)
        # Their fields come from the parameters by name, in both tables.
        for wrapper in ("void trace_glCompressedTexSubImage3D(",
                        "void idle_glCompressedTexSubImage3D("):
            start = text.index(wrapper)
            body = text[start:text.index("\n}\n", start)]
            self.assertIn("note_compressed_upload(glstate::CompressedUpload{", body)
            for field in (".target = ", "(target)", ".format = ", "(format)", ".z = ",
                          "(zoffset)", ".image_size = ", "(imageSize)", ".data = ", "(data)",
                          ".sub = true"):
                self.assertIn(field, body)

    def test_object_effects_tell_the_object_list_in_both_tables(self):
        # A mid-run capture's snapshot needs every object that lives (issue
        # 25): what glGen*/glDelete*/glCreate* made or deleted is noted after
        # the call, recorded or not.
        classes = {"texture": {"replay": "ObjectClass::kTexture"},
                   "program": {"replay": "ObjectClass::kProgram"}}
        text, _ = trace.trace_wrappers_inc(list(self.fn.values()), classes)
        for wrapper in ("void trace_glGenTextures(", "void idle_glGenTextures("):
            start = text.index(wrapper)
            body = text[start:text.index("\n}\n", start)]
            self.assertTrue(body.endswith("note_created(glstate::ObjectClass::kTexture, "
                                          "static_cast<int64_t>(n), textures);"), body)
        start = text.index("GLuint idle_glCreateProgram(")
        body = text[start:text.index("\n}\n", start)]
        self.assertIn("note_created(glstate::ObjectClass::kProgram, result);\n  return result;",
                      body)
        start = text.index("void trace_glDeleteProgram(")
        self.assertIn("note_deleted(glstate::ObjectClass::kProgram, program);",
                      text[start:text.index("\n}\n", start)])
        # Classes without a name list (GLsync handles) are not listed.
        self.assertNotIn("idle_glFenceSync(", text)

    def test_roles_reach_run_time(self):
        # gltrace/api/roles.h: each function's flags, indexed by id.
        functions = list(self.fn.values())
        for f in functions:
            f.id = f.id or 1 + functions.index(f)
        text = roles.roles_h(functions, 1 + max(f.id for f in functions))
        row = {line.rsplit("// ", 1)[1]: line.split("},")[0].strip(" {")
               for line in text.splitlines() if line.startswith("    {")}
        self.assertEqual(row["eglSwapBuffers"], 'kRoleSwap | kRoleThreadBound, ""')
        self.assertEqual(row["glFinish"], 'kRoleEndsFrame | kRoleThreadBound, ""')
        self.assertEqual(row["glDrawElementsBaseVertex"],
                         'kRoleDraw | kRoleCapturesDraw | kRoleThreadBound | kRoleGpuWork, ""')
        self.assertEqual(row["glMultiDrawElementsEXT"],
                         'kRoleOtherDraw | kRoleThreadBound | kRoleGpuWork, ""')
        # What replay --profile times: draws, clears, blits, dispatches.
        self.assertEqual(row["glClear"], 'kRoleThreadBound | kRoleGpuWork, ""')
        self.assertEqual(row["glDispatchCompute"],
                         'kRoleThreadBound | kRoleGpuWork | kRoleDispatch, ""')
        self.assertEqual(row["glDeleteBuffers"], 'kRoleThreadBound | kRoleDeletes, "buffer"')
        self.assertEqual(row["eglCreatePbufferSurface"],
                         'kRoleOffscreenSurface | kRoleEglSetup | kRoleCreates, "surface"')
        self.assertEqual(row["eglQueryString"], '0, ""')
        # The swaps every reader counts, and the draws the trace layer reads
        # the framebuffer after: the same sets the hooks of spec/api.toml name.
        swaps = {f.name for f in functions if "Swap" in roles.flags_of(f)}
        self.assertEqual(swaps, {f.name for f in functions
                                 if "end_swapped_frame" in f.hooks.get("done", [])})
        captured = {f.name for f in functions if "CapturesDraw" in roles.flags_of(f)}
        self.assertEqual(len(captured), 8)
        self.assertTrue(all("draw" in self.fn[n].roles for n in captured))
        pushes = {f.name for f in functions if "DebugPush" in roles.flags_of(f)}
        self.assertEqual(pushes, {"glPushDebugGroup", "glPushDebugGroupKHR",
                                  "glPushGroupMarkerEXT"})

    def test_requirements_reach_run_time(self):
        # gltrace/api/requirements.h: each function's GLES version (the
        # registry's features), each limit parameter (the table's limit).
        functions = list(self.fn.values())
        for f in functions:
            f.id = f.id or 1 + functions.index(f)
        self.assertEqual(requirements.es_version(self.fn["glTexStorage2D"]), (3, 0))
        self.assertEqual(requirements.es_version(self.fn["glDispatchCompute"]), (3, 1))
        self.assertEqual(requirements.es_version(self.fn["glMatrixMode"]), (1, 0))
        self.assertIsNone(requirements.es_version(self.fn["glEGLImageTargetTexture2DOES"]))
        text = requirements.requirements_h(functions, 1 + max(f.id for f in functions))
        self.assertIn("    32,  // glBlendBarrier\n", text)
        self.assertIn("{kFn_glRenderbufferStorageMultisample, 1, LimitRule::kAtMost, 0x8D57},  "
                      "// glRenderbufferStorageMultisample.samples GL_MAX_SAMPLES\n", text)
        self.assertIn("{kFn_glTexStorage3D, 5, LimitRule::kTextureDepth, 0},", text)
        self.assertIn("{kFn_glVertexAttribFormat, 0, LimitRule::kBelow, 0x8869},", text)

    def test_every_wrapper_is_generated(self):
        text, decls = trace.trace_wrappers_inc(list(self.fn.values()))
        for f in self.fn.values():
            self.assertIn(f" trace_{f.name}(", text)
            self.assertNotIn(f" trace_{f.name}(", decls)

    def test_hooks_are_called_around_the_generated_recording(self):
        # Plain arguments are the generated code's; the hooks follow them.
        draw = self.wrapper("glDrawElements")
        order = ["CallRecorder rec(", "(mode, count, type, indices);", "rec.finish()",
                 "record_client_arrays(rec, mode, count, type, indices);", "rec.commit();",
                 "capture_after_draw(recorded ? &rec : nullptr, mode, count, type, indices);"]
        positions = [draw.index(s, draw.index("trace_glDrawElements(")) for s in order]
        self.assertEqual(positions, sorted(positions))
        start = draw.index("if (recorded) {\n") + len("if (recorded) {\n")
        record = [line.strip() for line in draw[start:draw.index("\n  }", start)].splitlines()]
        self.assertEqual(record, [
            "rec.args().uint_value(static_cast<uint64_t>(mode));",
            "rec.args().sint_value(static_cast<int64_t>(count));",
            "rec.args().uint_value(static_cast<uint64_t>(type));",
            "rec.args().bytes_value(indices, gltrace::trace::index_bytes ( count , type ));",
            "record_client_arrays(rec, mode, count, type, indices);",
            "record_surface_resize(rec, mode, count, type, indices);",
            "rec.commit();"])
        # A pre hook runs before the timing starts and may skip the call.
        unmap = self.wrapper("glUnmapBuffer")
        self.assertLess(unmap.index("UnmapWrite state{};"),
                        unmap.index("bool make_call = capture_before_unmap(state, target, result);"))
        self.assertLess(unmap.index("make_call = "), unmap.index("CallRecorder rec("))
        self.assertIn("if (make_call) result = ", unmap)
        self.assertIn("forget_mapping(recorded ? &rec : nullptr, state, target, result);", unmap)

    def test_hook_declarations_have_one_signature_per_kind(self):
        _, decls = trace.trace_wrappers_inc(list(self.fn.values()))
        for line in [
                "struct UnmapWrite;",
                "bool capture_before_unmap(UnmapWrite& state, GLenum& target, GLboolean& result);",
                "void record_unmapped_write(CallRecorder& rec, UnmapWrite& state, GLenum target, "
                "GLboolean result);",
                "void forget_mapping(CallRecorder* recorded, UnmapWrite& state, GLenum target, "
                "GLboolean result);",
                "bool take_pending_gl_error(GLenum& result);",
                "void record_eglMakeCurrent(CallRecorder& rec, EGLDisplay dpy, EGLSurface draw, "
                "EGLSurface read, EGLContext ctx, EGLBoolean result);"]:
            self.assertIn(line + "\n", decls)
        # Only where the table asks for one.
        self.assertNotIn("void record_glDrawArrays(", decls)

    def test_plain_arguments_of_hooked_calls_come_from_the_table(self):
        self.assertIn("rec.args().strings_value(string, static_cast<int32_t>(static_cast<int64_t>"
                      "(count)), length);", self.wrapper("glShaderSource"))
        self.assertIn("rec.args().pointer_value(reinterpret_cast<const void*>(pointer));",
                      self.wrapper("glVertexAttribPointer"))

    def test_hand_written_sizes_of_khr_aliases_are_used(self):
        f = self.fn["glPushDebugGroupKHR"]
        self.assertEqual(trace.value_call(f, f.params[3]),
                         "text_value(message, gltrace::trace::compsize_glPushDebugGroupKHR_message"
                         "(source, id, length, message))")

    def test_every_uniform_location_is_remapped(self):
        # The regex this replaced missed glGetUniformi64vNV's.
        text = replay._generic(self.fn["glGetUniformi64vNV"], api.read(API_TABLE)["classes"])
        self.assertIn("a.uniform_location(1, 0)", text)

    def test_no_generator_names_a_function(self):
        # What a function means is the table's to say (docs/api-table.md).
        import re
        for module in (emit, replay, requirements, roles, trace, validate):
            with open(module.__file__, encoding="utf-8") as f:
                source = f.read()
            self.assertEqual(re.findall(r"[\"'](?:gl|egl)[A-Z]\w*", source), [], module.__name__)

    def load(self, text):
        import tomllib
        base = api.read(API_TABLE)
        extra = tomllib.loads(text)
        for key, value in extra.items():
            if isinstance(value, list):
                base.setdefault(key, []).extend(value)
            else:
                for k, v in value.items():
                    base.setdefault(key, {})[k] = v
        _, gl = registry.read_gl(GL_XML)
        egl = window_system_functions()
        api.load(egl + gl, base, registry.read_gl.enums)

    def assertRefused(self, text, message):
        with self.assertRaises(api.ApiError) as e:
            self.load(text)
        self.assertIn(message, str(e.exception))

    def test_the_table_loads(self):
        self.load("")

    def test_mistakes_are_refused(self):
        self.assertRefused("[functions.glNoSuchCall]\nroles = [\"draw\"]",
                           "functions not in the registry: glNoSuchCall")
        self.assertRefused("[functions.glBufferSubData]\nparams.nodata = { null_ok = true }",
                           "glBufferSubData: no parameter 'nodata'")
        self.assertRefused("[functions.glBufferSubData]\nparams.data = { length = \"count\" }",
                           "names no parameter 'count'")
        self.assertRefused("[functions.glBufferSubData]\nparams.size = { length = \"1\" }",
                           "a length rule for a non-pointer")
        self.assertRefused("[functions.glFlush]\nroles = [\"drwa\"]", "unknown role 'drwa'")
        self.assertRefused("[functions.glLineWidth]\nparams.width = { limit = \"<= GL_MAX_X\" }",
                           "a limit applies to integers and enums only")
        self.assertRefused("[functions.glScissor]\nparams.width = { limit = \"<= GL_MAX_NOPE\" }",
                           "GL_MAX_NOPE is no GL enum of the registry")
        self.assertRefused("[functions.glScissor]\nparams.width = { limit = \"texture_size\" }",
                           "limit texture_size reads the parameter 'target', which glScissor "
                           "lacks")
        self.assertRefused("[functions.glFlush]\nroles = [\"thread_bound\"]",
                           "thread_bound is for EGL and GLX functions")
        self.assertRefused("[functions.glFlush]\nhooks = { why = \"w\", idle_done = \"a-b\" }",
                           "glFlush.hooks.idle_done: a C++ function name")
        self.assertRefused("[functions.glFlush]\nret = { kind = \"enum\" }",
                           "ret given for a void function")
        self.assertRefused("[functions.glEnable]\nparams.cap = { kind = \"size\" }",
                           "unknown kind 'size'")
        self.assertRefused("[functions.glEnable]\nparams.cap = { effect = \"creates\" }",
                           "an effect on a value of no object class")
        self.assertRefused("[functions.glBufferSubData]\nparams.data = { nul_ok = true }",
                           "unknown key(s) nul_ok")
        self.assertRefused("[types]\nGLenum = \"number\"", "unknown kind 'number'")
        self.assertRefused("[functions.eglCopyBuffers]\nreplay_skip = \"a\"\n"
                           "replay_unsupported = \"no\"",
                           "only one")
        self.assertRefused("[functions.glFlush]\ncustom = { trace = \"by hand\" }",
                           "custom part 'trace' is none of export, replay")
        self.assertRefused("[functions.glFlush]\nhooks = { post = \"f\" }", "needs a why")
        self.assertRefused("[functions.glFlush]\nhooks = { why = \"w\" }", "names no hook")
        self.assertRefused("[functions.glFlush]\nhooks = { why = \"w\", after = \"f\" }",
                           "unknown key(s) after")
        self.assertRefused("[functions.glFlush]\nhooks = { why = \"w\", pre = \"a-b\" }",
                           "glFlush.hooks.pre: a C++ function name")
        self.assertRefused("[functions.glFlush]\n"
                           "hooks = { why = \"w\", post = [\"f\", \"f\"] }", "a hook named twice")
        self.assertRefused("[functions.glFlush]\nhooks = { why = \"w\", post = \"f\", "
                           "state = \"a b\" }", "is no C++ type name")
        self.assertRefused("[functions.glFlush]\nhooks = { why = \"w\", post = \"f\", "
                           "record = \"yes\" }", "record is true or false")
        self.assertRefused("[functions.glFlush]\nhooks = { why = \"w\", idle = \"a-b\" }",
                           "glFlush.hooks.idle: a C++ function name")
        self.assertRefused("[functions.glBufferSubData]\nparams.data = { lengths = \"size\" }",
                           "lengths applies to arrays of strings only")
        self.assertRefused("[functions.glReadPixels]\n"
                           "params.pixels = { offset_in = \"GL_NO_SUCH_BINDING\" }",
                           "GL_NO_SUCH_BINDING is no GL enum")

    def test_a_function_in_two_blocks_is_refused(self):
        # All the table says of a function is in one block.
        self.assertRefused("[functions.glDrawArraysInstanced]\nroles = [\"draw\"]",
                           "glDrawArraysInstanced is in groups[")
        self.assertRefused("[[groups]]\nfunctions = [\"glFlush\", \"glFlush\"]\n"
                           "roles = [\"draw\"]", "glFlush is in groups[")
        table = api.read(API_TABLE)
        names = [n for g in table["groups"] for n in g["functions"]] + list(table["functions"])
        self.assertEqual(len(names), len(set(names)))

    def test_a_pointer_without_a_length_rule_is_refused(self):
        table = api.read(API_TABLE)
        del table["functions"]["glExtGetTexSubImageQCOM"]
        _, gl = registry.read_gl(GL_XML)
        egl = window_system_functions()
        with self.assertRaises(api.ApiError) as e:
            api.load(egl + gl, table, registry.read_gl.enums)
        self.assertIn("glExtGetTexSubImageQCOM.texels: a pointer (void *) with no length rule",
                      str(e.exception))

    def test_a_type_without_a_kind_is_refused(self):
        table = api.read(API_TABLE)
        del table["types"]["GLfixed"]
        _, gl = registry.read_gl(GL_XML)
        egl = window_system_functions()
        with self.assertRaises(api.ApiError) as e:
            api.load(egl + gl, table, registry.read_gl.enums)
        self.assertIn("type 'GLfixed' has no kind in [types]", str(e.exception))


if __name__ == "__main__":
    unittest.main()


class ProfilesTest(unittest.TestCase):
    """spec/portable_profiles.toml: a profile takes its base's extensions and
    limits; names the registry lacks are refused."""

    @classmethod
    def setUpClass(cls):
        registry.read_gl(GL_XML)
        cls.enums = registry.read_gl.enums

    def read(self, text):
        with tempfile.NamedTemporaryFile("w", suffix=".toml", delete=False) as f:
            f.write(text)
        try:
            return profiles.read(f.name, self.enums)
        finally:
            os.unlink(f.name)

    def test_the_files_profiles(self):
        listed, values = profiles.read(PROFILES, self.enums)
        by_name = dict(listed)
        self.assertEqual((by_name["es3.0"]["major"], by_name["es3.0"]["minor"]), (3, 0))
        self.assertEqual(by_name["es3.0"]["at_most"]["GL_MAX_TEXTURE_SIZE"], 2048)
        # es3.1 on es3.0: its limits and extensions, and its own.
        self.assertEqual(by_name["es3.1"]["at_most"]["GL_MAX_TEXTURE_SIZE"], 2048)
        self.assertIn("GL_MAX_IMAGE_UNITS", by_name["es3.1"]["at_most"])
        self.assertIn("GL_OES_mapbuffer", by_name["es3.1"]["extensions"])
        header = profiles.profiles_h(listed, values)
        self.assertIn('{0xD33, "GL_MAX_TEXTURE_SIZE", 2048, false},', header)
        self.assertIn('{0x8A34, "GL_UNIFORM_BUFFER_OFFSET_ALIGNMENT", 256, true},', header)

    def test_mistakes_are_refused(self):
        with self.assertRaisesRegex(profiles.ProfileError, "GL_MAX_NOTHING is no GL enum"):
            self.read('[profiles.a]\nversion = "3.0"\nglsl = "3.00"\n'
                      '[profiles.a.at_most]\nGL_MAX_NOTHING = 1\n')
        with self.assertRaisesRegex(profiles.ProfileError, "base 'b' is not a profile above"):
            self.read('[profiles.a]\nversion = "3.0"\nglsl = "3.00"\nbase = "b"\n')
        with self.assertRaisesRegex(profiles.ProfileError, "version '3' is not M.m"):
            self.read('[profiles.a]\nversion = "3"\nglsl = "3.00"\n')
