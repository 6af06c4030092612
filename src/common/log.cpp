#include "common/log.h"

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "common/process.h"

namespace gltrace {

void log(LogLevel level, const char* fmt, ...) {
  const char* tag = "";
  switch (level) {
    case LogLevel::kError:
      tag = "error: ";
      break;
    case LogLevel::kWarning:
      tag = "warning: ";
      break;
    case LogLevel::kInfo:
      tag = "";
      break;
    case LogLevel::kDebug:
      tag = "debug: ";
      break;
  }
  // One fprintf per message so lines from several threads do not interleave.
  char message[2048];
  va_list args;
  va_start(args, fmt);
  vsnprintf(message, sizeof message, fmt, args);
  va_end(args);
  fprintf(stderr, "gltrace: %s%s\n", tag, message);
}

bool loader_debug_enabled() {
  static const bool enabled = [] {
    const char* value = env_get("GLTRACE_LOADER_DEBUG");
    return value != nullptr && *value != '\0' && strcmp(value, "0") != 0;
  }();
  return enabled;
}

}  // namespace gltrace
