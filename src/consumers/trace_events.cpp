#include "consumers/trace_events.h"

#include <cinttypes>

namespace gltrace::consumers {
namespace {

void append_json_string(std::string& out, std::string_view s) {
  out += '"';
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char escaped[8];
      snprintf(escaped, sizeof escaped, "\\u%04x", c & 0xff);
      out += escaped;
    } else {
      out += c;
    }
  }
  out += '"';
}

// Microseconds with ns precision, as the format expects.
void append_us(std::string& out, uint64_t ns) {
  char buffer[32];
  snprintf(buffer, sizeof buffer, "%" PRIu64 ".%03u", ns / 1000, static_cast<unsigned>(ns % 1000));
  out += buffer;
}

}  // namespace

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
                             uint64_t duration_ns, uint64_t seq, uint32_t context) {
  event_prefix();
  line_ += R"({"ph":"X","cat":"gl","name":)";
  append_json_string(line_, name);
  line_ += ",\"pid\":" + std::to_string(pid) + ",\"tid\":" + std::to_string(tid) + ",\"ts\":";
  append_us(line_, start_ns);
  line_ += ",\"dur\":";
  append_us(line_, duration_ns);
  line_ += ",\"args\":{\"call\":" + std::to_string(seq) +
           ",\"context\":" + std::to_string(context) + "}}";
  fwrite(line_.data(), 1, line_.size(), out_);
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

}  // namespace gltrace::consumers
