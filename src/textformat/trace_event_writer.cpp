#include "textformat/trace_event_writer.h"

#include <cinttypes>
#include <cstdio>

namespace gltrace::textformat {
namespace {

// Microseconds with ns precision, as the format expects.
void append_us(std::string& out, uint64_t ns) {
  char buffer[32];
  snprintf(buffer, sizeof buffer, "%" PRIu64 ".%03u", ns / 1000, static_cast<unsigned>(ns % 1000));
  out += buffer;
}

}  // namespace

size_t utf8_sequence_length(const unsigned char* p, size_t left) {
  unsigned char c = p[0];
  size_t n = c < 0x80             ? 1
             : (c & 0xe0) == 0xc0 ? 2
             : (c & 0xf0) == 0xe0 ? 3
             : (c & 0xf8) == 0xf0 ? 4
                                  : 0;
  if (n == 0 || n > left) return 0;
  for (size_t i = 1; i < n; ++i)
    if ((p[i] & 0xc0) != 0x80) return 0;
  uint32_t cp = n == 1 ? c : n == 2 ? c & 0x1fu : n == 3 ? c & 0x0fu : c & 0x07u;
  for (size_t i = 1; i < n; ++i) cp = cp << 6 | (p[i] & 0x3fu);
  // Overlong forms, surrogates and code points past Unicode are not UTF-8.
  static constexpr uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < kMin[n] || (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff) return 0;
  return n;
}

void append_json_string(std::string& out, std::string_view s) {
  out += '"';
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  size_t left = s.size();
  while (left != 0) {
    unsigned char c = *p;
    size_t n = c >= 0x20 && c < 0x80 ? 1 : c < 0x20 ? 0 : utf8_sequence_length(p, left);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (n == 0) {
      // A control character, or a byte that is not UTF-8: JSON must be
      // valid UTF-8, so the byte becomes the code point of its value.
      char escaped[8];
      snprintf(escaped, sizeof escaped, "\\u%04x", c);
      out += escaped;
      n = 1;
    } else {
      out.append(reinterpret_cast<const char*>(p), n);
    }
    p += n;
    left -= n;
  }
  out += '"';
}

void TraceEventWriter::event_prefix() {
  line_.clear();
  line_ += first_ ? "[\n" : ",\n";
  first_ = false;
}

void TraceEventWriter::begin(uint32_t pid, std::string_view process_name) {
  event_prefix();
  line_ +=
      R"({"ph":"M","name":"process_name","pid":)" + std::to_string(pid) + R"(,"args":{"name":)";
  append_json_string(line_, process_name);
  line_ += "}}";
  fwrite(line_.data(), 1, line_.size(), out_);
}

void TraceEventWriter::thread_name(uint32_t pid, uint64_t tid, std::string_view name) {
  event_prefix();
  line_ += R"({"ph":"M","name":"thread_name","pid":)" + std::to_string(pid) +
           ",\"tid\":" + std::to_string(tid) + R"(,"args":{"name":)";
  append_json_string(line_, name);
  line_ += "}}";
  fwrite(line_.data(), 1, line_.size(), out_);
}

void TraceEventWriter::slice(uint32_t pid, uint64_t tid, std::string_view name, uint64_t start_ns,
                             uint64_t duration_ns) {
  slice_start(pid, tid, name, start_ns, duration_ns);
  line_ += "}";
  fwrite(line_.data(), 1, line_.size(), out_);
}

void TraceEventWriter::slice(uint32_t pid, uint64_t tid, std::string_view name, uint64_t start_ns,
                             uint64_t duration_ns, uint64_t seq, uint32_t context) {
  slice_start(pid, tid, name, start_ns, duration_ns);
  line_ += ",\"args\":{\"call\":" + std::to_string(seq) +
           ",\"context\":" + std::to_string(context) + "}}";
  fwrite(line_.data(), 1, line_.size(), out_);
}

void TraceEventWriter::slice_start(uint32_t pid, uint64_t tid, std::string_view name,
                                   uint64_t start_ns, uint64_t duration_ns) {
  event_prefix();
  line_ += R"({"ph":"X","cat":"gl","name":)";
  append_json_string(line_, name);
  line_ += ",\"pid\":" + std::to_string(pid) + ",\"tid\":" + std::to_string(tid) + ",\"ts\":";
  append_us(line_, start_ns);
  line_ += ",\"dur\":";
  append_us(line_, duration_ns);
}

void TraceEventWriter::frame(uint32_t pid, uint64_t tid, uint64_t number, uint64_t time_ns) {
  event_prefix();
  line_ += R"({"ph":"i","s":"p","cat":"frame","name":"frame )" + std::to_string(number) +
           "\",\"pid\":" + std::to_string(pid) + ",\"tid\":" + std::to_string(tid) + ",\"ts\":";
  append_us(line_, time_ns);
  line_ += "}";
  fwrite(line_.data(), 1, line_.size(), out_);
}

void TraceEventWriter::end() {
  if (first_) fputs("[", out_);
  fputs("\n]\n", out_);
  fflush(out_);
}

}  // namespace gltrace::textformat
