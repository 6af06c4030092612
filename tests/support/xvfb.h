// A private Xvfb server for tests of X11 apps, ended by its PID.
#pragma once

#include <sys/types.h>

#include <string>

namespace gltrace::test {

class XvfbServer {
 public:
  // Starts on a free display, its screen `depth` bits deep (30: 10-bit
  // visuals); display() is "" if that failed.
  explicit XvfbServer(int depth = 24);
  ~XvfbServer();
  XvfbServer(const XvfbServer&) = delete;
  XvfbServer& operator=(const XvfbServer&) = delete;
  const std::string& display() const { return display_; }

 private:
  pid_t pid_ = -1;
  std::string display_;
};

}  // namespace gltrace::test
