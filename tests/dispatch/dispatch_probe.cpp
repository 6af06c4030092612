// Runs under the interposer (LD_PRELOAD) and checks what apps see of it:
// exported symbols, eglGetProcAddress answers, and a function the driver
// lacks. Prints "dispatch probe: OK" or the first failure.
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <dlfcn.h>

#include <cstdio>
#include <cstring>

#define CHECK(cond, ...)                            \
  do {                                              \
    if (!(cond)) {                                  \
      printf("dispatch probe: FAIL: " __VA_ARGS__); \
      printf("\n");                                 \
      return 1;                                     \
    }                                               \
  } while (0)

int main() {
  void* egl = dlopen("libEGL.so.1", RTLD_NOW);
  void* gles = dlopen("libGLESv2.so.2", RTLD_NOW);
  CHECK(egl != nullptr && gles != nullptr, "dlopen: %s", dlerror());
  Dl_info info{};
  dladdr(dlsym(egl, "eglGetDisplay"), &info);
  CHECK(info.dli_fname != nullptr && strstr(info.dli_fname, "libgltrace") != nullptr,
        "libEGL.so.1 was not answered by the interposer (%s)", info.dli_fname);

  auto gpa = reinterpret_cast<PFNEGLGETPROCADDRESSPROC>(dlsym(egl, "eglGetProcAddress"));
  // A known function: the same exported entry point dlsym gives.
  CHECK(reinterpret_cast<void*>(gpa("glDrawArrays")) == dlsym(gles, "glDrawArrays"),
        "eglGetProcAddress(glDrawArrays) is not the exported entry point");
  // Unknown EGL names stay NULL, as the driver says.
  CHECK(gpa("eglGltraceNoSuchFunction") == nullptr, "unknown EGL function is not NULL");
  // The same unknown gl name twice: one dynamic slot, the same address.
  auto a = gpa("glGltraceUnknownA"), b = gpa("glGltraceUnknownB"), a2 = gpa("glGltraceUnknownA");
  CHECK(a != nullptr && a == a2 && a != b, "dynamic slots are not stable");

  // EGL_KHR_stream is not in Mesa: the call reaches the missing stub, which
  // warns once and returns EGL_NO_STREAM_KHR instead of crashing.
  auto create_stream =
      reinterpret_cast<PFNEGLCREATESTREAMKHRPROC>(dlsym(egl, "eglCreateStreamKHR"));
  CHECK(create_stream != nullptr, "eglCreateStreamKHR is not exported");
  EGLDisplay display = eglGetDisplay(EGL_DEFAULT_DISPLAY);
  CHECK(create_stream(display, nullptr) == EGL_NO_STREAM_KHR,
        "eglCreateStreamKHR returned a stream");
  CHECK(create_stream(display, nullptr) == EGL_NO_STREAM_KHR, "second call");
  printf("dispatch probe: OK\n");
  return 0;
}
