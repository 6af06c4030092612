// The exported eglGetProcAddress and glXGetProcAddress(ARB): every pointer
// they return dispatches through the chain (the Android tracer missed
// functions obtained this way).
#include "dispatch/dispatch.h"
#include "dispatch/stubs.h"
#include "gl_loader/call.h"

namespace {

// The entry point to hand out for `procname`, which the driver resolved to
// `found` through the chain (the layers saw the call; the driver decided
// whether the function exists at all).
void* entry_point(const char* procname, void* found) {
  using namespace gltrace;
  if (found == nullptr || procname == nullptr) return found;
  api::FunctionId id = api::find_function(procname);
  return id != api::kInvalidFunction ? dispatch::exported_entry_points()[id]
                                     : dispatch::dynamic_entry_point(procname, found);
}

}  // namespace

extern "C" __attribute__((visibility("default"))) __eglMustCastToProperFunctionPointerType
eglGetProcAddress(const char* procname) {
  void* found = reinterpret_cast<void*>(
      GL_CALL(*gltrace::dispatch::current_table(), eglGetProcAddress)(procname));
  return reinterpret_cast<__eglMustCastToProperFunctionPointerType>(entry_point(procname, found));
}

extern "C" __attribute__((visibility("default"))) __GLXextFuncPtr glXGetProcAddressARB(
    const GLubyte* procname) {
  void* found = reinterpret_cast<void*>(
      GL_CALL(*gltrace::dispatch::current_table(), glXGetProcAddressARB)(procname));
  return reinterpret_cast<__GLXextFuncPtr>(
      entry_point(reinterpret_cast<const char*>(procname), found));
}

extern "C" __attribute__((visibility("default"))) __GLXextFuncPtr glXGetProcAddress(
    const GLubyte* procname) {
  void* found = reinterpret_cast<void*>(
      GL_CALL(*gltrace::dispatch::current_table(), glXGetProcAddress)(procname));
  return reinterpret_cast<__GLXextFuncPtr>(
      entry_point(reinterpret_cast<const char*>(procname), found));
}
