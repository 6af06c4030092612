// A GLES layer that changes one call, for gltrace diverge's tests: placed
// under a replay on one side, it is a driver that behaves otherwise at
// exactly one call. GLTRACE_INJECT=FUNCTION:N picks the Nth call (from 1)
// of FUNCTION:
//   glBlendFuncSeparate  its factors become GL_ONE, GL_ONE (a wrong blend);
//   glCheckFramebufferStatus  answers GL_FRAMEBUFFER_UNSUPPORTED (a wrong
//                        query result; the replay asks the driver itself with
//                        glGetIntegerv, so that one is not counted here);
//   glBufferData         uploads its data with the first half zeroed (a
//                        corrupted buffer upload).
#include <EGL/egl.h>
#include <GLES3/gl3.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "gltrace/gles_layer.h"

namespace {

std::string g_function;
long g_nth = 0;
std::atomic<long> g_seen{0};

PFNGLBLENDFUNCSEPARATEPROC g_blend_func_separate;
PFNGLCHECKFRAMEBUFFERSTATUSPROC g_check_framebuffer_status;
PFNGLBUFFERDATAPROC g_buffer_data;

// Whether this call of `function` is the one to change.
bool chosen(const char* function) {
  if (g_function != function || ++g_seen != g_nth) return false;
  fprintf(stderr, "inject layer: changing %s call %ld\n", function, g_nth);
  return true;
}

void GL_APIENTRY blend_func_separate(GLenum src_rgb, GLenum dst_rgb, GLenum src_alpha,
                                     GLenum dst_alpha) {
  if (chosen("glBlendFuncSeparate")) src_rgb = dst_rgb = GL_ONE;
  g_blend_func_separate(src_rgb, dst_rgb, src_alpha, dst_alpha);
}

GLenum GL_APIENTRY check_framebuffer_status(GLenum target) {
  GLenum status = g_check_framebuffer_status(target);
  return chosen("glCheckFramebufferStatus") ? GL_FRAMEBUFFER_UNSUPPORTED : status;
}

void GL_APIENTRY buffer_data(GLenum target, GLsizeiptr size, const void* data, GLenum usage) {
  if (data != nullptr && size > 0 && chosen("glBufferData")) {
    std::vector<char> corrupted(static_cast<const char*>(data),
                                static_cast<const char*>(data) + size);
    memset(corrupted.data(), 0, corrupted.size() / 2);
    g_buffer_data(target, size, corrupted.data(), usage);
    return;
  }
  g_buffer_data(target, size, data, usage);
}

}  // namespace

extern "C" {

__attribute__((visibility("default"))) void AndroidGLESLayer_Initialize(
    void* layer_id, PFNEGLGETNEXTLAYERPROCADDRESSPROC get_next) {
  const char* inject = getenv("GLTRACE_INJECT");
  if (inject != nullptr && strchr(inject, ':') != nullptr) {
    g_function.assign(inject, strchr(inject, ':'));
    g_nth = strtol(strchr(inject, ':') + 1, nullptr, 10);
  }
  g_blend_func_separate =
      reinterpret_cast<PFNGLBLENDFUNCSEPARATEPROC>(get_next(layer_id, "glBlendFuncSeparate"));
  g_check_framebuffer_status = reinterpret_cast<PFNGLCHECKFRAMEBUFFERSTATUSPROC>(
      get_next(layer_id, "glCheckFramebufferStatus"));
  g_buffer_data = reinterpret_cast<PFNGLBUFFERDATAPROC>(get_next(layer_id, "glBufferData"));
}

__attribute__((visibility("default"))) void* AndroidGLESLayer_GetProcAddress(const char* name,
                                                                             EGLFuncPointer next) {
  if (strcmp(name, "glBlendFuncSeparate") == 0 && g_blend_func_separate != nullptr)
    return reinterpret_cast<void*>(&blend_func_separate);
  if (strcmp(name, "glCheckFramebufferStatus") == 0 && g_check_framebuffer_status != nullptr)
    return reinterpret_cast<void*>(&check_framebuffer_status);
  if (strcmp(name, "glBufferData") == 0 && g_buffer_data != nullptr)
    return reinterpret_cast<void*>(&buffer_data);
  return reinterpret_cast<void*>(next);
}

}  // extern "C"
