// The replay's error and warning lines, each naming the call being replayed:
// errors counted (the first few printed), warnings printed and not counted.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>

namespace gltrace::glreplay {

// "0x..." of a recorded value, for messages.
std::string hex(uint64_t value);

struct ReplayCall;

class Messages {
 public:
  // program prefixes every line; past max_errors errors they are only counted.
  Messages(std::string program, size_t max_errors)
      : program_(std::move(program)), max_errors_(max_errors) {}

  // The call the lines are about (null: none).
  void set_call(const ReplayCall* call) { call_ = call; }

  // "call N: message" on stderr (the first max_errors of them) and counted.
  void report(const std::string& message);
  // "call N (FUNCTION): warning: message" on stderr, not counted.
  void warn(const std::string& message);
  uint64_t errors() const { return errors_; }
  // Also hands each line ("call N: message") to `hook`.
  void set_hook(std::function<void(const std::string&)> hook) { hook_ = std::move(hook); }

 private:
  std::string program_;
  size_t max_errors_;
  const ReplayCall* call_ = nullptr;
  uint64_t errors_ = 0;
  std::function<void(const std::string&)> hook_;
};

}  // namespace gltrace::glreplay
