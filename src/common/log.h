// Diagnostics printed from inside the traced process. Everything goes to
// stderr with a "gltrace: " prefix so it is easy to grep out of an app's output.
#pragma once

namespace gltrace {

enum class LogLevel { kError, kWarning, kInfo, kDebug };

// printf-style; a newline is appended.
void log(LogLevel level, const char* fmt, ...) __attribute__((format(printf, 2, 3)));

// True when GLTRACE_LOADER_DEBUG is set to a non-zero value (read once).
bool loader_debug_enabled();

}  // namespace gltrace

#define GLTRACE_LOG_ERROR(...) ::gltrace::log(::gltrace::LogLevel::kError, __VA_ARGS__)
#define GLTRACE_LOG_WARN(...) ::gltrace::log(::gltrace::LogLevel::kWarning, __VA_ARGS__)
#define GLTRACE_LOG_INFO(...) ::gltrace::log(::gltrace::LogLevel::kInfo, __VA_ARGS__)
#define GLTRACE_LOADER_DEBUG(...)                               \
  do {                                                          \
    if (::gltrace::loader_debug_enabled())                      \
      ::gltrace::log(::gltrace::LogLevel::kDebug, __VA_ARGS__); \
  } while (0)
