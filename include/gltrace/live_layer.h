/* gltrace's extension of the layer contract: a "live" layer that the loader
 * can switch on and off per thread while the app runs (the trace layer).
 *
 * The loader puts a live layer on top of the chain and builds two tables:
 *   active  the layer's AndroidGLESLayer_GetProcAddress functions over the chain;
 *   idle    the chain alone, except for the few functions the layer hands out
 *           through GltraceLiveLayer_GetIdleProcAddress (its switch points:
 *           eglSwapBuffers, eglMakeCurrent...), so that an idle thread costs
 *           nothing more than the interposer on every other call.
 * The layer switches the calling thread between them with the host's
 * use_active(); threads without a table of their own follow set_default(). */
#ifndef GLTRACE_LIVE_LAYER_H_
#define GLTRACE_LIVE_LAYER_H_

#include "gltrace/gles_layer.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GLTRACE_LIVE_HOST_VERSION 1

typedef struct GltraceLiveHost {
  unsigned version; /* GLTRACE_LIVE_HOST_VERSION */
  /* The calling thread's table from now on: active (non-zero) or idle. */
  void (*use_active)(int active);
  /* The table of threads that have none of their own yet. */
  void (*set_default)(int active);
} GltraceLiveHost;

/* Called once, instead of AndroidGLESLayer_Initialize; `host` stays valid. */
typedef void (*PFNGLTRACELIVELAYERINITIALIZEPROC)(void* layer_id,
                                                  PFNEGLGETNEXTLAYERPROCADDRESSPROC get_next,
                                                  const GltraceLiveHost* host);
/* The idle table's function for funcName: the layer's switch point, or
 * nullptr (then the idle table calls `next` directly). */
typedef void* (*PFNGLTRACELIVELAYERGETIDLEPROCADDRESSPROC)(const char* funcName,
                                                           EGLFuncPointer next);

#ifdef __cplusplus
}
#endif

#endif /* GLTRACE_LIVE_LAYER_H_ */
