/* A layer written outside gltrace's tree, as a layer author would: C, the
 * Android contract from <gltrace/gles_layer.h>, built against the installed
 * package (CMake and pkg-config). It wraps eglInitialize and says so, naming
 * the build that made it (INSTALL_LAYER_BUILD). */
#include <gltrace/gles_layer.h>
#include <stdio.h>
#include <string.h>

typedef EGLBoolean (*EglInitializeFn)(EGLDisplay, EGLint*, EGLint*);

static EglInitializeFn next_initialize;

static EGLBoolean EGLAPIENTRY layer_eglInitialize(EGLDisplay display, EGLint* major,
                                                  EGLint* minor) {
  fprintf(stderr, "install-layer (%s): eglInitialize\n", INSTALL_LAYER_BUILD);
  return next_initialize != NULL ? next_initialize(display, major, minor) : EGL_FALSE;
}

void AndroidGLESLayer_Initialize(void* layer_id, PFNEGLGETNEXTLAYERPROCADDRESSPROC get_next) {
  (void)layer_id;
  (void)get_next;
}

void* AndroidGLESLayer_GetProcAddress(const char* name, EGLFuncPointer next) {
  if (strcmp(name, "eglInitialize") == 0) {
    next_initialize = (EglInitializeFn)next;
    return (void*)layer_eglInitialize;
  }
  return (void*)next;
}
