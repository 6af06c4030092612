#include "glreplay/messages.h"

#include <cinttypes>
#include <cstdio>

#include "glreplay/call.h"
#include "gltrace/api/functions.h"

namespace gltrace::glreplay {

std::string hex(uint64_t value) {
  char text[24];
  snprintf(text, sizeof text, "0x%" PRIx64, value);
  return text;
}

void Messages::report(const std::string& message) {
  ++errors_;
  if (hook_)
    hook_(call_ != nullptr ? "call " + std::to_string(call_->seq) + ": " + message : message);
  if (errors_ <= max_errors_) {
    if (call_ != nullptr)
      fprintf(stderr, "%s: call %" PRIu64 ": %s\n", program_.c_str(), call_->seq, message.c_str());
    else
      fprintf(stderr, "%s: %s\n", program_.c_str(), message.c_str());
  } else if (errors_ == max_errors_ + 1) {
    fprintf(stderr, "%s: more errors: only counted from now on\n", program_.c_str());
  }
}

void Messages::warn(const std::string& message) {
  const char* name = call_ != nullptr && call_->function < api::kFunctionIdLimit
                         ? api::kFunctionInfo[call_->function].name
                         : nullptr;
  if (hook_)
    hook_(call_ != nullptr ? "call " + std::to_string(call_->seq) + ": warning: " + message
                           : "warning: " + message);
  if (call_ != nullptr)
    fprintf(stderr, "%s: call %" PRIu64 " (%s): warning: %s\n", program_.c_str(), call_->seq,
            name != nullptr ? name : "?", message.c_str());
  else
    fprintf(stderr, "%s: warning: %s\n", program_.c_str(), message.c_str());
}

}  // namespace gltrace::glreplay
