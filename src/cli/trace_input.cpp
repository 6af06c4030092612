#include "cli/trace_input.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "cli/commands.h"

namespace gltrace::cli {

bool open_trace(const char* command, const std::string& path, format::ChunkReader* reader) {
  bool ok = path == "-" ? reader->open_fd(dup(STDIN_FILENO)) : reader->open(path);
  if (!ok)
    fprintf(stderr, "gltrace %s: %s: %s\n", command, path.c_str(),
            reader->status().message.c_str());
  else if (!reader->index_error().empty())  // costs only seeking: said, not fatal
    fprintf(stderr,
            "gltrace %s: warning: %s: the index is damaged (%s); reading the chunks in order\n",
            command, path.c_str(), reader->index_error().c_str());
  return ok;
}

int finish_reading(const char* command, const std::string& path, bool ok,
                   const format::ReadStatus& status) {
  if (!ok) {
    fprintf(stderr, "gltrace %s: %s: %s\n", command, path.c_str(), status.message.c_str());
    return kExitFailure;
  }
  if (status.state == format::ReadState::kCutShort)
    fprintf(stderr, "gltrace %s: warning: %s: %s\n", command, path.c_str(), status.message.c_str());
  return kExitOk;
}

bool parse_range(const std::string& text, uint64_t* first, uint64_t* last) {
  auto number = [](const std::string& s, uint64_t* out) {
    if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos) return false;
    *out = strtoull(s.c_str(), nullptr, 10);
    return true;
  };
  size_t dash = text.find('-');
  if (dash == std::string::npos) return number(text, first) && number(text, last);
  std::string a = text.substr(0, dash), b = text.substr(dash + 1);
  *first = 0;
  *last = UINT64_MAX;
  return (a.empty() || number(a, first)) && (b.empty() || number(b, last)) &&
         !(a.empty() && b.empty()) && *first <= *last;
}

}  // namespace gltrace::cli
