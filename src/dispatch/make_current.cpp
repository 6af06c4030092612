// The exported eglMakeCurrent: through the chain like every EGL call, then
// the calling thread's table follows the API of the context it made current
// (gltrace covers OpenGL ES; desktop OpenGL passes to the driver untouched).
#include <EGL/egl.h>

#include "dispatch/dispatch.h"
#include "dispatch/stubs.h"
#include "gl_loader/call.h"

extern "C" __attribute__((visibility("default"))) EGLBoolean eglMakeCurrent(EGLDisplay dpy,
                                                                            EGLSurface draw,
                                                                            EGLSurface read,
                                                                            EGLContext ctx) {
  using namespace gltrace;
  EGLBoolean result = GL_CALL(*dispatch::current_table(), eglMakeCurrent)(dpy, draw, read, ctx);
  if (result == EGL_TRUE) {
    // Asked of the driver: no layer sees the query. After a successful
    // eglMakeCurrent the thread's EGL error is EGL_SUCCESS, which the query
    // leaves as it is.
    EGLint client_type = 0;
    if (ctx != EGL_NO_CONTEXT) {
      auto query = GL_CALL(*dispatch::driver_table(), eglQueryContext);
      query(dpy, ctx, EGL_CONTEXT_CLIENT_TYPE, &client_type);
    }
    dispatch::set_thread_desktop_gl(client_type == EGL_OPENGL_API);
  }
  return result;
}
