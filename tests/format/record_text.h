// A consumer that writes every decoded field of every record as a line of
// text: tests compare traces with it, and the fuzzer uses it to touch all
// the decoded memory (so ASan sees any bad view).
#pragma once

#include <string>
#include <vector>

#include "format/records.h"

namespace gltrace::test {

class RecordText : public format::Consumer {
 public:
  void on_chunk(uint64_t offset, uint32_t record_count) override;
  void on_header(const format::Header& h) override;
  void on_thread(const format::Thread& t) override;
  void on_context(const format::Context& c) override;
  void on_call(const format::Call& c) override;
  void on_blob(const format::Blob& b) override;
  void on_frame(const format::Frame& f) override;
  void on_image(const format::Image& i) override;
  void on_stats(const format::Stats& s) override;
  void on_desktop_gl(const format::DesktopGl& d) override;

  bool with_chunks = false;  // also a line per chunk (its offset)
  std::vector<std::string> lines;
};

std::string value_text(const format::Value& v);

}  // namespace gltrace::test
