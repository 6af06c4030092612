// The replay's check of what a trace needs (consumers/requirements.h)
// against the driver it replays on: at the first context the replay makes
// current, the driver's version, extensions and limits are read, and the
// trace is scanned on a thread of its own; what the driver lacks is warned
// on stderr when the scan is done; the replay goes on (the user may know
// better). A driver that is the one the trace was recorded on (the same
// GL_RENDERER and GL_VERSION) is not checked: the trace's calls ran on it,
// and the scan reads the whole trace a second time (in a streaming replay,
// some 750 instructions a call).
#pragma once

#include <memory>
#include <string>

// No prototypes: every EGL function is the driver's, reached through gl_loader.
#ifndef EGL_EGL_PROTOTYPES
#define EGL_EGL_PROTOTYPES 0
#endif
#include <EGL/egl.h>

#include "gl_loader/gl_loader.h"

namespace gltrace::glreplay {

class RequirementsCheck {
 public:
  // Of the trace at `path`; `program` prefixes the warnings.
  RequirementsCheck(std::string path, std::string program);
  ~RequirementsCheck();  // waits for the scan
  RequirementsCheck(const RequirementsCheck&) = delete;
  RequirementsCheck& operator=(const RequirementsCheck&) = delete;

  // With a context of the replay's current: reads the driver's answers
  // and, unless it is the trace's own driver (`capture_driver`), scans the
  // trace and warns for each need they do not meet. Once it had an ES
  // context's answers, later calls do nothing.
  void check(gl_loader::Driver& driver, bool capture_driver);
  bool asked_driver();

  // When the replay never had an ES context current (the driver refused
  // the trace's: a version it lacks), the same with a context of its own, the
  // newest ES the driver makes, on this thread, which has none current;
  // waits for the scan.
  void check_with_own_context(gl_loader::Driver& driver, EGLDisplay display);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace gltrace::glreplay
