// A one-line progress indicator for long work (replay, dump -o, export,
// frames): calls and frames done, rate and time left, on stderr when it is a
// terminal, redrawn at most 10 times a second and erased at the end. Nothing
// at all when stderr is not a terminal (a pipe, a log file, a test).
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace gltrace {

class Progress {
 public:
  // `what` begins the line ("gltrace export"); `total` is how much work
  // there is, in the unit at() counts (bytes of input, frames...; 0: unknown,
  // then no share done and time left are shown).
  Progress(std::string what, uint64_t total);
  ~Progress() { finish(); }
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  bool active() const { return active_; }

  // Cheap enough per call: looks at the clock once every kCallsPerCheck.
  void add_call() {
    ++calls_;
    if (active_ && --until_check_ == 0) check();
  }
  void add_frame() {
    ++frames_;
    if (active_) check();
  }
  // How much of the work is done (of total).
  void at(uint64_t done) { done_ = done; }
  // Erases the line (idempotent).
  void finish();

  // The line as drawn (without the carriage return and erase), for tests.
  static std::string format_line(const std::string& what, uint64_t calls, uint64_t frames,
                                 double seconds, uint64_t done, uint64_t total);

  static constexpr uint32_t kCallsPerCheck = 4096;

 private:
  void check();

  std::string what_;
  uint64_t total_;
  bool active_;
  bool drawn_ = false;
  uint64_t calls_ = 0, frames_ = 0, done_ = 0;
  uint32_t until_check_ = kCallsPerCheck;
  std::chrono::steady_clock::time_point start_, next_draw_;
};

}  // namespace gltrace
