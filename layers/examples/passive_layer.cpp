// The passive layer sample of the Android GLES layers document
// (shared/seeds/gles-layers-ja.txt, "パッシブレイヤ"), kept as the document
// writes it so it shows an Android layer building unchanged against gltrace's
// loader. Changes from the document are marked "gltrace:":
//  - the includes and the two typedefs the document leaves out (Android layer
//    sources define them themselves, exactly like this);
//  - eglChooseConfig prints "enter"/"leave" so tests can see the chain order,
//    and returns EGL_FALSE with a message instead of crashing when the loader
//    gave it no next function.
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <stdio.h>
#include <string.h>

#include <string>
#include <unordered_map>

typedef __eglMustCastToProperFunctionPointerType EGLFuncPointer;
typedef void* (*PFNEGLGETNEXTLAYERPROCADDRESSPROC)(void*, const char*);

// The document's layout, not clang-format's, so it can be compared line by line.
// clang-format off
namespace {

std::unordered_map<std::string, EGLFuncPointer> funcMap;

EGLAPI EGLBoolean EGLAPIENTRY glesLayer_eglChooseConfig (
  EGLDisplay dpy, const EGLint *attrib_list, EGLConfig *configs, EGLint config_size,
  EGLint *num_config) {

  EGLFuncPointer entry = funcMap["eglChooseConfig"];

  typedef EGLBoolean (*PFNEGLCHOOSECONFIGPROC)(
    EGLDisplay, const EGLint*, EGLConfig*, EGLint, EGLint*);

  PFNEGLCHOOSECONFIGPROC next = reinterpret_cast<PFNEGLCHOOSECONFIGPROC>(entry);

  // gltrace: was `return next(dpy, attrib_list, configs, config_size, num_config);`
  fprintf(stderr, "gles-layer-passive: eglChooseConfig enter\n");
  if (next == nullptr) {
    fprintf(stderr, "gles-layer-passive: eglChooseConfig: the loader gave no next "
                    "eglChooseConfig; returning EGL_FALSE\n");
    return EGL_FALSE;
  }
  EGLBoolean result = next(dpy, attrib_list, configs, config_size, num_config);
  fprintf(stderr, "gles-layer-passive: eglChooseConfig leave (%d configs)\n",
          result && num_config ? *num_config : 0);
  return result;
}

EGLAPI EGLFuncPointer EGLAPIENTRY eglGPA(const char* funcName) {

  #define GETPROCADDR(func) if(!strcmp(funcName, #func)) { \
    return (EGLFuncPointer)glesLayer_##func; }

  GETPROCADDR(eglChooseConfig);

  // Don't return anything for unrecognized functions
  return nullptr;
}

EGLAPI void EGLAPIENTRY glesLayer_InitializeLayer(
  void* layer_id, PFNEGLGETNEXTLAYERPROCADDRESSPROC get_next_layer_proc_address) {
     // This function is purposefully empty, since this layer does not proactively
     // look up any entrypoints
  }

EGLAPI EGLFuncPointer EGLAPIENTRY glesLayer_GetLayerProcAddress(
  const char* funcName, EGLFuncPointer next) {
  EGLFuncPointer entry = eglGPA(funcName);
  if (entry != nullptr) {
    funcMap[std::string(funcName)] = next;
    return entry;
  }
  return next;
}

}  // namespace

// gltrace: the document first declares `void* AndroidGLESLayer_Initialize(...))`
// (a doubled parenthesis, and void* where its samples and Android's loader use
// void); the samples' void form is the right one and is what is exported here.
extern "C" {
  __attribute((visibility("default"))) EGLAPI void AndroidGLESLayer_Initialize(
    void* layer_id, PFNEGLGETNEXTLAYERPROCADDRESSPROC get_next_layer_proc_address) {
    return (void)glesLayer_InitializeLayer(layer_id, get_next_layer_proc_address);
  }
  __attribute((visibility("default"))) EGLAPI void* AndroidGLESLayer_GetProcAddress(
    const char *funcName, EGLFuncPointer next) {
    return (void*)glesLayer_GetLayerProcAddress(funcName, next);
  }
}
// clang-format on
