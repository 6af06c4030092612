"""tools/check_function_lists.py on small trees: the lists it must name, among
them the hand lists issue 24 deleted (copied here as they were), and the
single-function uses it must let pass."""

import os
import subprocess
import sys
import tempfile
import unittest

TOOLS = os.path.join(os.path.dirname(__file__), "..", "..", "tools")
CHECK = os.path.join(TOOLS, "check_function_lists.py")
sys.path.insert(0, TOOLS)
import check_function_lists  # noqa: E402

# consumers/frame_end.h before the roles table.
FRAME_END = """
inline bool ends_frame(const format::Call& call) {
  return call.function == api::kFn_eglSwapBuffers ||
         call.function == api::kFn_eglSwapBuffersWithDamageKHR ||
         call.function == api::kFn_eglSwapBuffersWithDamageEXT ||
         (call.ends_frame && call.function == api::kFn_glFinish);
}
"""
# glreplay/executor.cpp's draws (shortened) and thread-bound EGL calls.
EXECUTOR = """
bool is_draw(uint32_t function) {
  switch (function) {
    case api::kFn_glDrawArrays:
    case api::kFn_glDrawArraysInstanced:
    case api::kFn_glDrawElements:
      return true;
    default:
      return false;
  }
}
bool needs_own_thread(uint32_t function) {
  if (api::kFunctionInfo[function].api == api::Api::kGles) return true;
  switch (function) {
    case api::kFn_eglBindAPI:
    case api::kFn_eglMakeCurrent:
    case api::kFn_eglReleaseThread:
      return true;
    default:
      return false;
  }
}
"""
# surface/from_gl/from_gl.cpp's swaps.
FROM_GL = """
bool is_swap(uint32_t f) {
  return f == api::kFn_eglSwapBuffers || f == api::kFn_eglSwapBuffersWithDamageKHR ||
         f == api::kFn_eglSwapBuffersRegion2NOK;
}
"""
# trace/live.cpp's idle switch: a handler per function is no list.
LIVE = """
void* live_idle_function(uint32_t id) {
  switch (id) {
    case api::kFn_eglInitialize:
      return reinterpret_cast<void*>(&idle_eglInitialize);
    case api::kFn_eglMakeCurrent:
      return reinterpret_cast<void*>(&idle_eglMakeCurrent);
    default:
      return idle_wrapper(id);
  }
}
"""
# view/trace_model.cpp's prefixes and web/app.js's regex.
VIEW = """
      if (n.starts_with("glDraw") || n.starts_with("glMultiDraw"))
        k[id] = CallKind::kDraw;
      else if (n.starts_with("glPushDebugGroup") || n == "glPushGroupMarkerEXT")
"""
APP_JS = "const DRAW_REGEX = '^gl(Multi)?Draw';\n"


def check(files, *options):
    """(exit status, stderr) of the check on a tree of files (src/ and web/)."""
    with tempfile.TemporaryDirectory() as root:
        for path, text in files.items():
            os.makedirs(os.path.join(root, os.path.dirname(path)), exist_ok=True)
            with open(os.path.join(root, path), "w", encoding="utf-8") as f:
                f.write(text)
        dirs = [os.path.join(root, d) for d in ("src", "web")]
        for d in dirs:
            os.makedirs(d, exist_ok=True)
        result = subprocess.run([sys.executable, CHECK, *options, *dirs], capture_output=True,
                                text=True, check=False)
        return result.returncode, result.stderr


class CheckFunctionLists(unittest.TestCase):
    def test_the_deleted_lists_are_named(self):
        status, err = check({"src/consumers/frame_end.h": FRAME_END,
                             "src/glreplay/executor.cpp": EXECUTOR,
                             "src/surface/from_gl.cpp": FROM_GL})
        self.assertEqual(status, 1)
        self.assertIn("src/consumers/frame_end.h:3: functions tested as a set: eglSwapBuffers, "
                      "eglSwapBuffersWithDamageEXT, eglSwapBuffersWithDamageKHR, glFinish", err)
        self.assertIn("src/glreplay/executor.cpp:4: case labels of 3 functions sharing one body",
                      err)
        self.assertIn("src/glreplay/executor.cpp:15: case labels of 3 functions sharing one body",
                      err)
        self.assertIn("src/surface/from_gl.cpp:3: functions tested as a set", err)

    def test_prefixes_and_patterns_are_named(self):
        status, err = check({"src/model.cpp": VIEW, "web/app.js": APP_JS})
        self.assertEqual(status, 1)
        self.assertIn('src/model.cpp:2: a name prefix test: starts_with("glDraw"', err)
        self.assertIn('src/model.cpp:2: a name prefix test: starts_with("glMultiDraw"', err)
        self.assertIn('src/model.cpp:4: a name prefix test: starts_with("glPushDebugGroup"', err)
        self.assertIn("web/app.js:1: a name pattern: '^gl(Multi)?Draw'", err)

    def test_name_and_id_initializers_are_named(self):
        found = check_function_lists.lists_in(
            'const char* kSwaps[] = {"eglSwapBuffers", "eglSwapBuffersWithDamageKHR"};\n'
            "const uint32_t kIds[] = {api::kFn_glFlush, api::kFn_glFinish};\n")
        self.assertEqual([line for line, _ in found], [1, 2])

    def test_one_function_and_handlers_per_function_pass(self):
        status, err = check({
            "src/trace/live.cpp": LIVE,
            "src/a.cpp": "if (call.function == api::kFn_eglMakeCurrent) return handle(3) != 0;\n"
                         "if (call.function == api::kFn_eglBindAPI) return false;\n"
                         "auto get = dlsym(egl_, \"eglGetProcAddress\");\n"
                         "// glDrawArrays || glDrawElements in a comment\n"
                         "error = \"glReadPixels failed\" + hex(e);\n"
                         "text = \"(eglBindAPI(EGL_OPENGL_API)): not traced\";\n",
            # Labels whose body tells them apart: a handler for each.
            "src/b.cpp": "switch (f) {\n  case api::kFn_glVertexPointer:\n"
                         "  case api::kFn_glColorPointer:\n  case api::kFn_glNormalPointer: {\n"
                         "    bool normal = f == api::kFn_glNormalPointer;\n"
                         "    break;\n  }\n}\n"})
        self.assertEqual((status, err), (0, ""))

    def test_the_viewers_old_prefixes_fail(self):
        status, err = check({"src/view/trace_model.cpp": VIEW})
        self.assertEqual(status, 1)
        self.assertIn("src/view/trace_model.cpp:2: a name prefix test", err)


if __name__ == "__main__":
    unittest.main()
