// The text dumper: one line per call, in file order, with filters.
#pragma once

#include <cstdio>
#include <optional>
#include <regex>
#include <string>

#include "consumers/value_format.h"
#include "format/records.h"
#include "textformat/value_text.h"

namespace gltrace::consumers {

struct DumpFilter {
  uint64_t first_call = 0, last_call = UINT64_MAX;    // by seq
  uint64_t first_frame = 0, last_frame = UINT64_MAX;  // by frame number
  std::optional<uint32_t> thread;                     // Thread.index
  std::optional<uint32_t> context;                    // Context.index
  std::optional<std::regex> function;                 // matched against the name
  bool timing = false;                                // print start and duration

  // Whether calls are chosen one by one (calls, thread, context, function):
  // then a frame's end is printed only after a frame with a printed call.
  bool selects_calls() const {
    return first_call != 0 || last_call != UINT64_MAX || thread || context || function;
  }
};

class Dumper : public format::Consumer {
 public:
  Dumper(FILE* out, DumpFilter filter) : out_(out), filter_(std::move(filter)) {}
  ~Dumper() override;
  Dumper(const Dumper&) = delete;
  Dumper& operator=(const Dumper&) = delete;
  // Writes the lines collected so far.
  void flush();
  // After the last record: ends the frames whose calls were read but whose
  // Frame records were not (a trace cut between them), so that the
  // `// end of frame` lines count the trace's frames as every command does.
  void finish();

  void on_header(const format::Header& header) override;
  void on_thread(const format::Thread& thread) override;
  void on_context(const format::Context& context) override;
  void on_blob(const format::Blob& blob) override;
  void on_call(const format::Call& call) override;
  void on_frame(const format::Frame& frame) override;
  void on_stats(const format::Stats& stats) override;
  void on_desktop_gl(const format::DesktopGl& desktop_gl) override;
  void on_gpu_time(const format::GpuTime& gpu_time) override;

  uint64_t calls_printed() const { return printed_; }
  // A blob's size without its record: a reader that hands on chosen calls
  // (the viewer's export) names the blobs they refer to.
  void note_blob(uint64_t id, uint64_t size) { blobs_[id] = size; }

 private:
  bool frame_selected() const {
    return frame_ >= filter_.first_frame && frame_ <= filter_.last_frame;
  }

  // A call's number: the last one's text counted up when it is the next
  // (most are), which is a few instructions where to_chars is dozens.
  void append_seq(uint64_t seq);

  FILE* out_;
  DumpFilter filter_;
  BlobSizes blobs_;
  std::string line_;
  // Lines collect in text_'s buffer, then in line_, which is written out 64
  // KiB at a time: one copy per buffer, not one per line.
  textformat::Text text_{line_};
  char seq_text_[24] = {};
  size_t seq_size_ = 0;  // 0: no number written yet
  uint64_t seq_ = 0;
  uint64_t frame_ = 0;
  uint64_t printed_ = 0;
  uint64_t printed_in_frame_ = 0;
  uint64_t frames_ended_ = 0;   // calls read that end frames
  uint64_t frame_records_ = 0;  // Frame records taken for them
};

}  // namespace gltrace::consumers
