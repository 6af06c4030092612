// `gltrace info`: what a trace holds and how it was captured.
#include <sys/stat.h>

#include <cinttypes>
#include <cstdio>
#include <iterator>
#include <map>
#include <string>

#include "cli/commands.h"
#include "cli/trace_input.h"
#include "consumers/value_format.h"
#include "format/records.h"

namespace gltrace::cli {

namespace {

constexpr char kName[] = "info";

class InfoCollector : public format::Consumer {
 public:
  void on_chunk(uint64_t, uint32_t) override { ++chunks; }
  // Names and strings from the trace are escaped: a hostile trace must not
  // send escape sequences to the terminal.
  void on_header(const format::Header& h) override {
    printf("process:      %s (pid %u)\n", consumers::escaped(h.process_name).c_str(), h.pid);
    printf("command line: %s\n", consumers::escaped(h.command_line).c_str());
    printf("format:       version %u, clock %s, mode %s%s\n", h.format_version,
           consumers::escaped(h.clock_domain).c_str(), consumers::escaped(h.mode).c_str(),
           h.mid_run ? ", started mid-run" : "");
    if (!h.capture_options.empty())
      printf("capture:      %s\n", consumers::escaped(h.capture_options).c_str());
  }
  void on_thread(const format::Thread& t) override {
    printf("thread %u:     tid %" PRIu64 " \"%s\"\n", t.index, t.tid,
           consumers::escaped(t.name).c_str());
  }
  void on_context(const format::Context& c) override {
    printf("context %u:    ES %d, %ux%u, %s | %s | %s\n", c.index, c.client_version,
           c.surface_width, c.surface_height, consumers::escaped(c.gl_vendor).c_str(),
           consumers::escaped(c.gl_renderer).c_str(), consumers::escaped(c.gl_version).c_str());
  }
  void on_call(const format::Call& call) override {
    ++calls;
    last_ns = std::max(last_ns, call.start_ns + call.duration_ns);
    add_seq(call.seq);
  }
  void on_calls_complete(const format::CallsComplete& c) override {
    complete_below = std::max(complete_below, c.below_seq);
  }

  // Prints a warning line per run of seqs missing below the last one read.
  void print_gaps(bool closed_cleanly) const {
    constexpr int kMaxLines = 10;
    int lines = 0;
    uint64_t gaps = 0, missing = 0, next = 0;
    if (early_gaps > 0)
      printf("warning:      %" PRIu64 " calls are missing in the first %" PRIu64
             " gaps (counted as they came: the trace has more than %zu)\n",
             early_missing, early_gaps, kMaxRuns);
    for (const auto& [first, last] : seqs) {
      if (first > next) {
        ++gaps;
        missing += first - next;
        // Below a CallsComplete record, or in a trace closed cleanly, the
        // calls were lost while recording; otherwise when the capture was cut.
        if (++lines <= kMaxLines) {
          std::string range = first - 1 > next ? "calls " + std::to_string(next) + "-" +
                                                     std::to_string(first - 1) + " are"
                                               : "call " + std::to_string(next) + " is";
          printf("warning:      %s missing from the trace (%s)\n", range.c_str(),
                 first <= complete_below || closed_cleanly ? "lost while tracing"
                                                           : "lost before the capture was cut");
        }
      }
      next = last + 1;
    }
    if (lines > kMaxLines || early_gaps > 0)
      printf("warning:      %" PRIu64 " calls missing in %" PRIu64 " gaps in all\n",
             missing + early_missing, gaps + early_gaps);
  }
  void on_blob(const format::Blob& b) override {
    ++blobs;
    blob_bytes += b.data.size();
  }
  void on_frame(const format::Frame& f) override {
    if (f.has_app_frame) {
      if (frames == 0) first_app_frame = f.app_frame;
      last_app_frame = f.app_frame;
      app_frames = true;
    }
    ++frames;
  }
  void on_image(const format::Image&) override { ++images; }
  void on_stats(const format::Stats& s) override {
    have_stats = true;
    stats = s;
  }

  uint64_t chunks = 0, calls = 0, frames = 0, blobs = 0, blob_bytes = 0, images = 0, last_ns = 0;
  uint64_t first_app_frame = 0, last_app_frame = 0;
  uint64_t complete_below = 0;
  // The seqs read, as runs [first, last]: threads' chunks interleave, so
  // runs merge as the chunks of the other threads come. At most kMaxRuns:
  // past that the lowest gap is counted (early_*) and its runs merged, so a
  // trace of many gaps costs bounded memory.
  static constexpr size_t kMaxRuns = size_t{1} << 20;
  std::map<uint64_t, uint64_t> seqs;
  uint64_t early_gaps = 0, early_missing = 0;
  bool app_frames = false;  // live traces number frames as the app does
  bool have_stats = false;
  format::Stats stats;

 private:
  void add_seq(uint64_t seq) {
    merge_runs(seq);
    if (seqs.size() <= kMaxRuns) return;
    auto lowest = seqs.begin();
    auto second = std::next(lowest);
    ++early_gaps;
    early_missing += second->first - lowest->second - 1;
    lowest->second = second->second;
    seqs.erase(second);
  }
  void merge_runs(uint64_t seq) {
    auto next = seqs.upper_bound(seq);
    if (next != seqs.begin()) {
      auto run = std::prev(next);
      if (seq <= run->second) return;  // seen (a damaged trace may repeat)
      if (run->second + 1 == seq) {
        run->second = seq;
        if (next != seqs.end() && next->first == seq + 1) {
          run->second = next->second;
          seqs.erase(next);
        }
        return;
      }
    }
    if (next != seqs.end() && next->first == seq + 1) {
      uint64_t last = next->second;
      seqs.erase(next);
      seqs.emplace(seq, last);
      return;
    }
    seqs.emplace(seq, seq);
  }
};

}  // namespace

namespace {

int info(const std::string& path) {
  format::ChunkReader reader;
  if (!open_trace(kName, path, &reader)) return kExitFailure;
  InfoCollector info;
  format::ReadStatus status;
  bool ok = format::read_trace_prefetched(reader, info, &status);
  struct stat st {};
  uint64_t file_bytes = stat(path.c_str(), &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0;
  printf("calls:        %" PRIu64 "\n", info.calls);
  printf("frames:       %" PRIu64 "%s\n", info.frames,
         reader.index() != nullptr ? " (indexed)" : "");
  if (info.app_frames)
    printf("app frames:   %" PRIu64 "..%" PRIu64 "\n", info.first_app_frame, info.last_app_frame);
  printf("duration:     %.3f s\n", static_cast<double>(info.last_ns) / 1e9);
  printf("blobs:        %" PRIu64 " (%.1f MB)\n", info.blobs,
         static_cast<double>(info.blob_bytes) / 1e6);
  printf("images:       %" PRIu64 "\n", info.images);
  printf("chunks:       %" PRIu64 "\n", status.chunks);
  bool cut_short = status.state == format::ReadState::kCutShort;
  if (file_bytes != 0)
    printf(
        "file size:    %.2f MB (%.1f bytes per call)\n", static_cast<double>(file_bytes) / 1e6,
        info.calls != 0 ? static_cast<double>(file_bytes) / static_cast<double>(info.calls) : 0.0);
  // A trace cut short has no Stats record: its compression is that of the
  // chunks read (up to the cut), and the writer's stalls were never written.
  uint64_t stored = cut_short ? status.offset : file_bytes;
  uint64_t uncompressed =
      info.have_stats && !cut_short ? info.stats.bytes_uncompressed : status.payload_bytes;
  if (stored != 0 && uncompressed != 0)
    printf("compression:  %.2fx (%.2f MB uncompressed)%s\n",
           static_cast<double>(uncompressed) / static_cast<double>(stored),
           static_cast<double>(uncompressed) / 1e6,
           cut_short ? ", of the part read (up to the cut)" : "");
  if (info.have_stats)
    printf("writer stall: %" PRIu64 " times, %.1f ms\n", info.stats.stall_count,
           static_cast<double>(info.stats.stall_ns) / 1e6);
  else
    printf("writer stall: unknown (%s)\n", cut_short
                                               ? "the trace was cut short before its final figures"
                                               : "the trace has no final figures");
  info.print_gaps(status.closed_cleanly);
  printf("complete:     %s\n", status.closed_cleanly ? "yes (closed cleanly)"
                               : status.state == format::ReadState::kCutShort
                                   ? "no: cut short (the app crashed or was killed)"
                                   : "no index");
  return finish_reading(kName, path, ok, status);
}

}  // namespace

void register_info(Commands& commands) {
  auto path = std::make_shared<std::string>();
  CommandLine& line =
      commands.add(kName, "what a trace holds: process, contexts, frames, calls, bytes",
                   [path](const CommandLine&) { return info(*path); });
  CLI::App& app = line.app();
  app.description(
      "Prints the header (process, command line, driver), threads, contexts,\n"
      "frames, calls, bytes, compression ratio and the writer's stall time.");
  app.add_option("TRACE", *path, "the trace")->required();
}

}  // namespace gltrace::cli
