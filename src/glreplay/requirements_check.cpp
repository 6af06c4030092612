#include "glreplay/requirements_check.h"

#include <EGL/eglext.h>
#define GL_GLES_PROTOTYPES 0
#include <GLES3/gl32.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <mutex>
#include <optional>
#include <sstream>
#include <thread>

#include "consumers/requirements.h"
#include "gl_loader/call.h"

namespace gltrace::glreplay {

// The scan, on a thread of its own, starts when the driver has answered;
// it reports when it is done. A replay need not wait for the scan of a big
// trace.
struct RequirementsCheck::Impl {
  std::string path, program;
  std::thread scanner;
  std::atomic<bool> stop{false};  // a replay that ends first does not wait for the scan
  std::mutex mutex;
  bool scanned = false;
  // nullopt for a trace the scan could not read (the replay's own reading
  // says why).
  std::optional<consumers::Requirements> needs;
  std::optional<consumers::DriverCapabilities> driver;
  bool reported = false;

  void start_scan();  // with the mutex held (the scan takes it to report)
  // With the mutex held.
  void report_when_ready() {
    if (!scanned || !driver || reported) return;
    reported = true;
    if (!needs) return;
    for (const std::string& line : consumers::missing_requirements(*needs, *driver))
      fprintf(stderr, "%s: requirements: the driver lacks %s\n", program.c_str(), line.c_str());
  }
};

RequirementsCheck::RequirementsCheck(std::string path, std::string program)
    : impl_(std::make_unique<Impl>()) {
  impl_->path = std::move(path);
  impl_->program = std::move(program);
}

RequirementsCheck::~RequirementsCheck() {
  impl_->stop = true;
  if (impl_->scanner.joinable()) impl_->scanner.join();
}

void RequirementsCheck::Impl::start_scan() {
  scanner = std::thread([this] {
    consumers::Requirements found;
    std::string error;
    bool ok = consumers::scan_requirements(path, &found, &error, &stop);
    std::lock_guard<std::mutex> lock(mutex);
    if (ok) needs = std::move(found);
    scanned = true;
    report_when_ready();
  });
}

namespace {

// What the current context's driver offers: its version, its extensions and
// every limit a scan can name.
consumers::DriverCapabilities capabilities(gl_loader::Driver& driver) {
  consumers::DriverCapabilities caps;
  auto get_string = GL_CALL(driver, glGetString);
  auto get_integer = GL_CALL(driver, glGetIntegerv);
  auto get_error = GL_CALL(driver, glGetError);
  if (get_string == nullptr || get_integer == nullptr || get_error == nullptr) return caps;
  auto text = [&](GLenum name) {
    const GLubyte* s = get_string(name);
    return s != nullptr ? std::string(reinterpret_cast<const char*>(s)) : std::string();
  };
  caps.version_text = text(GL_VERSION);
  caps.version = consumers::parse_gl_version(caps.version_text);
  std::istringstream extensions(text(GL_EXTENSIONS));
  for (std::string name; extensions >> name;) caps.extensions.insert(name);
  // The first ES context made current is all but always new (made current
  // before only when a desktop GL one came first): no error of the app's is
  // pending; a pname this context does not know (a limit of a newer ES)
  // leaves its error to be cleared and the limit unjudged.
  while (get_error() != GL_NO_ERROR) {
  }
  for (uint32_t pname : consumers::limit_pnames()) {
    GLint values[4] = {0, 0, 0, 0};
    get_integer(pname, values);
    if (get_error() != GL_NO_ERROR) continue;
    // The viewport's two dimensions: a need counts against the smaller.
    caps.limits[pname] = pname == GL_MAX_VIEWPORT_DIMS ? std::min(values[0], values[1]) : values[0];
  }
  return caps;
}

}  // namespace

void RequirementsCheck::check(gl_loader::Driver& driver, bool capture_driver) {
  if (asked_driver()) return;
  consumers::DriverCapabilities caps = capabilities(driver);
  // A desktop GL context through EGL answers for another API: the next
  // context made current may be an ES one.
  if (caps.version == 0) return;
  std::lock_guard<std::mutex> lock(impl_->mutex);
  impl_->driver = std::move(caps);
  if (capture_driver) {
    impl_->reported = true;  // nothing to scan for
    return;
  }
  impl_->start_scan();
}

bool RequirementsCheck::asked_driver() {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->driver.has_value();
}

void RequirementsCheck::check_with_own_context(gl_loader::Driver& driver, EGLDisplay display) {
  if (asked_driver()) return;
  auto initialize = GL_CALL(driver, eglInitialize);
  auto bind_api = GL_CALL(driver, eglBindAPI);
  auto choose = GL_CALL(driver, eglChooseConfig);
  auto create = GL_CALL(driver, eglCreateContext);
  auto make_current = GL_CALL(driver, eglMakeCurrent);
  auto destroy = GL_CALL(driver, eglDestroyContext);
  if (display == EGL_NO_DISPLAY || initialize == nullptr || bind_api == nullptr ||
      choose == nullptr || create == nullptr || make_current == nullptr || destroy == nullptr)
    return;
  // Again: the trace's eglTerminate may have ended it (shutdown() ends it for good).
  if (!initialize(display, nullptr, nullptr)) return;
  bind_api(EGL_OPENGL_ES_API);
  // Pbuffer configs: the surface type's default (windows) has none headless.
  const EGLint config_attribs[] = {EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE,
                                   EGL_OPENGL_ES2_BIT, EGL_NONE};
  EGLConfig config = nullptr;
  EGLint configs = 0;
  if (!choose(display, config_attribs, &config, 1, &configs) || configs == 0) return;
  EGLContext context = EGL_NO_CONTEXT;
  for (EGLint version : {32, 31, 30, 20}) {
    const EGLint attribs[] = {EGL_CONTEXT_MAJOR_VERSION, version / 10, EGL_CONTEXT_MINOR_VERSION,
                              version % 10, EGL_NONE};
    context = create(display, config, EGL_NO_CONTEXT, attribs);
    if (context != EGL_NO_CONTEXT) break;
  }
  if (context == EGL_NO_CONTEXT) return;
  // Without a surface (EGL_KHR_surfaceless_context): nothing is drawn.
  if (make_current(display, EGL_NO_SURFACE, EGL_NO_SURFACE, context)) {
    check(driver, /*capture_driver=*/false);
    make_current(display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    if (impl_->scanner.joinable()) impl_->scanner.join();  // it reports
  }
  destroy(display, context);
}

}  // namespace gltrace::glreplay
