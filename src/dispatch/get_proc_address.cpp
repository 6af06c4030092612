// The exported eglGetProcAddress: every pointer it returns dispatches through
// the chain (the Android tracer missed functions obtained this way).
#include "dispatch/dispatch.h"
#include "dispatch/stubs.h"
#include "gl_loader/call.h"

extern "C" __attribute__((visibility("default"))) __eglMustCastToProperFunctionPointerType
eglGetProcAddress(const char* procname) {
  using namespace gltrace;
  // Through the chain first: the layers see the call, and the driver decides
  // whether the function exists at all.
  __eglMustCastToProperFunctionPointerType found =
      GL_CALL(*dispatch::current_table(), eglGetProcAddress)(procname);
  if (found == nullptr || procname == nullptr) return found;
  api::FunctionId id = api::find_function(procname);
  void* entry = id != api::kInvalidFunction
                    ? dispatch::exported_entry_points()[id]
                    : dispatch::dynamic_entry_point(procname, reinterpret_cast<void*>(found));
  return reinterpret_cast<__eglMustCastToProperFunctionPointerType>(entry);
}
