// A private Xvfb server for tests of X11 apps, ended by its PID.
#pragma once

#include <sys/types.h>

#include <string>

namespace gltrace::test {

class XvfbServer {
 public:
  XvfbServer();  // starts on a free display; display() is "" if that failed
  ~XvfbServer();
  XvfbServer(const XvfbServer&) = delete;
  XvfbServer& operator=(const XvfbServer&) = delete;
  const std::string& display() const { return display_; }

 private:
  pid_t pid_ = -1;
  std::string display_;
};

}  // namespace gltrace::test
