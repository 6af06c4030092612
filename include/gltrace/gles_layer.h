/* The Android GLES layer contract (Android 10+), byte for byte at the C ABI.
 *
 * A layer is a shared object exporting:
 *   void  AndroidGLESLayer_Initialize(void* layer_id,
 *                                     PFNEGLGETNEXTLAYERPROCADDRESSPROC
 * get_next_layer_proc_address); void* AndroidGLESLayer_GetProcAddress(const char* funcName,
 * EGLFuncPointer next);
 *
 * Android layer sources usually define these two typedefs themselves; they may
 * include this header as well (identical typedefs may be repeated). */
#ifndef GLTRACE_GLES_LAYER_H_
#define GLTRACE_GLES_LAYER_H_

#include <EGL/egl.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef __eglMustCastToProperFunctionPointerType EGLFuncPointer;
typedef void* (*PFNEGLGETNEXTLAYERPROCADDRESSPROC)(void*, const char*);

/* Android's loader ignores Initialize's return value; the seed document shows
 * it both as void and as void*, which are the same call at the C ABI. */
typedef void (*PFNANDROIDGLESLAYERINITIALIZEPROC)(void* layer_id,
                                                  PFNEGLGETNEXTLAYERPROCADDRESSPROC get_next);
typedef void* (*PFNANDROIDGLESLAYERGETPROCADDRESSPROC)(const char* funcName, EGLFuncPointer next);

#ifdef __cplusplus
}
#endif

#endif /* GLTRACE_GLES_LAYER_H_ */
