// Per-call cost of the interposer, of one layer and of tracing, on a
// call-heavy loop.
//
//   gltrace-bench-calls [--calls N] [--reps R] [--upload BYTES]
//
// Runs itself natively, under the interposer with no layer, traceable but
// idle (the trace layer loaded live, no host attached), with one
// pass-through layer, with the counting layer and with the trace layer
// recording every call (full mode); each child times N
// calls of glGetError (Mesa's cheapest entry point) and reports the best of R
// repetitions in ns/call. The differences are what gltrace adds per call.
// With --upload, the call is glBufferSubData of BYTES bytes, cycling through
// 16 different contents: the trace stores each once as a blob and then
// finds it again (the cost of blob deduplication on repeated uploads).
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GLES3/gl3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

namespace {

bool make_context() {
  auto get_platform_display = reinterpret_cast<PFNEGLGETPLATFORMDISPLAYEXTPROC>(
      eglGetProcAddress("eglGetPlatformDisplayEXT"));
  EGLDisplay display =
      get_platform_display != nullptr
          ? get_platform_display(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, nullptr)
          : eglGetDisplay(EGL_DEFAULT_DISPLAY);
  if (display == EGL_NO_DISPLAY || !eglInitialize(display, nullptr, nullptr)) return false;
  const EGLint config_attribs[] = {EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE,
                                   EGL_OPENGL_ES3_BIT, EGL_NONE};
  EGLConfig config;
  EGLint count = 0;
  if (!eglChooseConfig(display, config_attribs, &config, 1, &count) || count < 1) return false;
  const EGLint surface_attribs[] = {EGL_WIDTH, 16, EGL_HEIGHT, 16, EGL_NONE};
  EGLSurface surface = eglCreatePbufferSurface(display, config, surface_attribs);
  const EGLint context_attribs[] = {EGL_CONTEXT_MAJOR_VERSION, 3, EGL_NONE};
  eglBindAPI(EGL_OPENGL_ES_API);
  EGLContext context = eglCreateContext(display, config, EGL_NO_CONTEXT, context_attribs);
  return context != EGL_NO_CONTEXT && eglMakeCurrent(display, surface, surface, context);
}

int run_child(long calls, int reps, long upload) {
  if (!make_context()) {
    fprintf(stderr, "bench: cannot create a GLES 3 context\n");
    return 2;
  }
  constexpr long kContents = 16;
  std::vector<unsigned char> contents(static_cast<size_t>(upload * kContents));
  for (size_t i = 0; i < contents.size(); ++i)
    contents[i] = static_cast<unsigned char>(i * 131 + i / 251);
  if (upload > 0) {
    GLuint buffer = 0;
    glGenBuffers(1, &buffer);
    glBindBuffer(GL_ARRAY_BUFFER, buffer);
    glBufferData(GL_ARRAY_BUFFER, upload, nullptr, GL_DYNAMIC_DRAW);
  }
  double best = 1e30;
  GLenum sink = 0;
  for (int rep = 0; rep < reps; ++rep) {
    auto start = std::chrono::steady_clock::now();
    if (upload > 0) {
      for (long i = 0; i < calls; ++i)
        glBufferSubData(GL_ARRAY_BUFFER, 0, upload,
                        &contents[static_cast<size_t>(i % kContents * upload)]);
    } else {
      for (long i = 0; i < calls; ++i) sink |= glGetError();
    }
    std::chrono::duration<double, std::nano> elapsed = std::chrono::steady_clock::now() - start;
    best = std::min(best, elapsed.count() / static_cast<double>(calls));
  }
  printf("%.3f\n", best + (sink != 0 ? 1e-9 : 0.0));
  return 0;
}

// Runs this binary as a child with extra environment; returns its ns/call.
double measure(const char* self, long calls, int reps, long upload,
               const std::vector<std::string>& env) {
  int fds[2];
  if (pipe(fds) != 0) return -1;
  pid_t pid = fork();
  if (pid == 0) {
    dup2(fds[1], 1);
    close(fds[0]);
    // The layers' own messages are not part of the figures.
    freopen("/dev/null", "w", stderr);
    for (const auto& assignment : env) putenv(strdup(assignment.c_str()));
    std::string n = std::to_string(calls), r = std::to_string(reps), u = std::to_string(upload);
    execl(self, self, "--child", "--calls", n.c_str(), "--reps", r.c_str(), "--upload", u.c_str(),
          static_cast<char*>(nullptr));
    _exit(127);
  }
  close(fds[1]);
  char buffer[64] = {};
  ssize_t got = read(fds[0], buffer, sizeof buffer - 1);
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (got <= 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) return -1;
  return atof(buffer);
}

std::string dir_of(const std::string& path) { return path.substr(0, path.find_last_of('/')); }

}  // namespace

int main(int argc, char** argv) {
  long calls = 5'000'000;
  int reps = 7;
  long upload = 0;
  bool child = false;
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--child") == 0)
      child = true;
    else if (strcmp(argv[i], "--calls") == 0 && i + 1 < argc)
      calls = atol(argv[++i]);
    else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc)
      reps = atoi(argv[++i]);
    else if (strcmp(argv[i], "--upload") == 0 && i + 1 < argc && atol(argv[i + 1]) >= 0)
      upload = atol(argv[++i]);
    else {
      fprintf(stderr, "usage: %s [--calls N] [--reps R] [--upload BYTES]\n", argv[0]);
      return 2;
    }
  }
  if (child) return run_child(calls, reps, upload);

  char self[4096];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) return 2;
  self[n] = '\0';
  std::string lib = dir_of(dir_of(self)) + "/lib/gltrace";
  std::vector<std::string> clean = {"DEBUG_GLES_LAYERS=", "LD_PRELOAD=", "GLTRACE_LOADER_DEBUG=0"};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> env = clean;
    env.insert(env.end(), extra.begin(), extra.end());
    return env;
  };
  std::string preload = "LD_PRELOAD=" + lib + "/libgltrace.so";
  std::string layer_path = "GLTRACE_LAYER_PATH=" + lib + "/layers";
  char trace_dir[] = "/tmp/gltrace-bench-XXXXXX";
  if (mkdtemp(trace_dir) == nullptr) return 2;
  // A directory: each run's process writes a file of its own there.
  std::string trace_file = "GLTRACE_TRACE_FILE=" + std::string(trace_dir) + "/";
  struct Case {
    const char* name;
    std::vector<std::string> env;
  } cases[] = {
      {"direct (no gltrace)", with({})},
      {"interposer, no layer", with({preload})},
      {"interposer, traceable but idle", with({preload, layer_path, "GLTRACE_LIVE=full"})},
      {"interposer + pass-through layer",
       with({preload, layer_path, "DEBUG_GLES_LAYERS=libGLES_layer_passthrough.so"})},
      {"interposer + counting layer",
       with({preload, layer_path, "DEBUG_GLES_LAYERS=libGLES_layer_counting.so"})},
      {"interposer + trace layer (full)",
       with({preload, layer_path, "DEBUG_GLES_LAYERS=libGLES_trace.so", trace_file})},
  };
  if (upload > 0)
    printf("per-call cost of glBufferSubData of %ld bytes, best of %d x %ld calls (ns/call)\n",
           upload, reps, calls);
  else
    printf("per-call cost of glGetError, best of %d x %ld calls (ns/call)\n", reps, calls);
  double base = -1, interposer = -1;
  for (const auto& c : cases) {
    double ns = measure(self, calls, reps, upload, c.env);
    if (ns < 0) {
      printf("  %-34s failed\n", c.name);
      return 1;
    }
    if (base < 0) {
      base = ns;
    } else if (interposer < 0) {
      interposer = ns;
    }
    printf("  %-34s %7.2f ns/call   (+%.2f ns)", c.name, ns, ns - base);
    if (strstr(c.name, "idle") != nullptr)
      printf("   %+.2f ns over the interposer alone (target: within 2 ns)", ns - interposer);
    printf("\n");
  }
  std::filesystem::remove_all(trace_dir);
  return 0;
}
