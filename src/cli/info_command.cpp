// `gltrace info`: what a trace holds and how it was captured.
#include <sys/stat.h>

#include <cinttypes>
#include <cstdio>
#include <iterator>
#include <map>
#include <string>

#include "cli/commands.h"
#include "cli/trace_input.h"
#include "consumers/context_api.h"
#include "consumers/frame_end.h"
#include "consumers/requirements.h"
#include "consumers/trace_events.h"
#include "consumers/value_format.h"
#include "format/records.h"
#include "gltrace/api/profiles.h"

namespace gltrace::cli {

namespace {

constexpr char kName[] = "info";

// The "key": value pairs of a JSON object, strings escaped.
class JsonObject {
 public:
  JsonObject& str(const char* key, std::string_view v) {
    this->key(key);
    consumers::append_json_string(text_, v);
    return *this;
  }
  JsonObject& num(const char* key, uint64_t v) {
    this->key(key);
    text_ += std::to_string(v);
    return *this;
  }
  JsonObject& integer(const char* key, int64_t v) {
    this->key(key);
    text_ += std::to_string(v);
    return *this;
  }
  JsonObject& real(const char* key, double v) {
    this->key(key);
    char number[32];
    snprintf(number, sizeof number, "%.6g", v);
    text_ += number;
    return *this;
  }
  JsonObject& boolean(const char* key, bool v) { return raw(key, v ? "true" : "false"); }
  JsonObject& raw(const char* key, const std::string& json) {
    this->key(key);
    text_ += json;
    return *this;
  }
  std::string done() const { return text_ + "}"; }

 private:
  void key(const char* k) {
    text_ += text_.size() == 1 ? "\"" : ", \"";
    text_ += k;
    text_ += "\": ";
  }
  std::string text_ = "{";
};

class InfoCollector : public format::Consumer {
 public:
  explicit InfoCollector(bool json) : json_(json) {}
  void on_chunk(uint64_t, uint32_t) override { ++chunks; }
  // Names and strings from the trace are escaped: a hostile trace must not
  // send escape sequences to the terminal.
  void on_header(const format::Header& h) override {
    flight_recorder = h.flight_recorder;
    if (json_) {
      header = JsonObject()
                   .str("process", h.process_name)
                   .num("pid", h.pid)
                   .str("command_line", h.command_line)
                   .num("format_version", h.format_version)
                   .str("clock", h.clock_domain)
                   .str("mode", h.mode)
                   .boolean("started_mid_run", h.mid_run)
                   .str("capture_options", h.capture_options)
                   .str("driver", h.driver)
                   .str("cut_from", h.cut_from)
                   .boolean("flight_recorder", h.flight_recorder)
                   .done();
      return;
    }
    printf("process:      %s (pid %u)\n", consumers::escaped(h.process_name).c_str(), h.pid);
    printf("command line: %s\n", consumers::escaped(h.command_line).c_str());
    printf("format:       version %u, clock %s, mode %s%s\n", h.format_version,
           consumers::escaped(h.clock_domain).c_str(), consumers::escaped(h.mode).c_str(),
           h.mid_run ? ", started mid-run" : "");
    if (!h.capture_options.empty())
      printf("capture:      %s\n", consumers::escaped(h.capture_options).c_str());
    if (!h.cut_from.empty()) printf("cut from:     %s\n", consumers::escaped(h.cut_from).c_str());
    if (h.flight_recorder)
      printf("written by:   a flight recorder (its calls are the last rounds it kept)\n");
  }
  void on_thread(const format::Thread& t) override {
    if (json_) {
      threads += threads.empty() ? "" : ", ";
      threads += JsonObject().num("index", t.index).num("tid", t.tid).str("name", t.name).done();
      return;
    }
    printf("thread %u:     tid %" PRIu64 " \"%s\"\n", t.index, t.tid,
           consumers::escaped(t.name).c_str());
  }
  void on_context(const format::Context& c) override {
    if (json_) {
      contexts += contexts.empty() ? "" : ", ";
      contexts += JsonObject()
                      .num("index", c.index)
                      .str("window_system", c.window_system == "glx" ? "glx" : "egl")
                      .str("api", consumers::context_api(c).short_text())
                      .integer("client_version", c.client_version)
                      .num("surface_width", c.surface_width)
                      .num("surface_height", c.surface_height)
                      .str("gl_vendor", c.gl_vendor)
                      .str("gl_renderer", c.gl_renderer)
                      .str("gl_version", c.gl_version)
                      .done();
      return;
    }
    printf("context %u:    %s %s, %ux%u, %s | %s | %s\n", c.index,
           c.window_system == "glx" ? "GLX" : "EGL", consumers::context_api(c).short_text().c_str(),
           c.surface_width, c.surface_height, consumers::escaped(c.gl_vendor).c_str(),
           consumers::escaped(c.gl_renderer).c_str(), consumers::escaped(c.gl_version).c_str());
  }
  void on_call(const format::Call& call) override {
    ++calls;
    if (consumers::ends_frame(call)) ++frames;
    last_ns = std::max(last_ns, call.start_ns + call.duration_ns);
    add_seq(call.seq);
  }
  bool wants_values(uint32_t /*function*/) const override { return false; }
  void on_calls_complete(const format::CallsComplete& c) override {
    complete_below = std::max(complete_below, c.below_seq);
  }

  struct Gap {
    uint64_t first, last;
    bool lost_while_tracing;  // else lost before the capture was cut
  };
  struct Gaps {
    std::vector<Gap> listed;  // the first kMaxListed
    uint64_t gaps = 0, missing = 0;
  };
  static constexpr size_t kMaxListed = 10;
  // The runs of seqs missing below the last one read.
  Gaps gaps(bool closed_cleanly) const {
    Gaps g;
    g.gaps = early_gaps;
    g.missing = early_missing;
    uint64_t next = 0;
    for (const auto& [first, last] : seqs) {
      if (first > next) {
        ++g.gaps;
        g.missing += first - next;
        // Below a CallsComplete record, or in a trace closed cleanly, the
        // calls were lost while recording; otherwise when the capture was cut.
        if (g.listed.size() < kMaxListed)
          g.listed.push_back({next, first - 1, first <= complete_below || closed_cleanly});
      }
      next = last + 1;
    }
    return g;
  }

  // Prints a warning line per run of seqs missing below the last one read.
  void print_gaps(bool closed_cleanly) const {
    Gaps g = gaps(closed_cleanly);
    if (early_gaps > 0)
      printf("warning:      %" PRIu64 " calls are missing in the first %" PRIu64
             " gaps (counted as they came: the trace has more than %zu)\n",
             early_missing, early_gaps, kMaxRuns);
    for (const Gap& gap : g.listed) {
      std::string range = gap.last > gap.first ? "calls " + std::to_string(gap.first) + "-" +
                                                     std::to_string(gap.last) + " are"
                                               : "call " + std::to_string(gap.first) + " is";
      printf("warning:      %s missing from the trace (%s)\n", range.c_str(),
             gap.lost_while_tracing ? "lost while tracing" : "lost before the capture was cut");
    }
    if (g.gaps - early_gaps > kMaxListed || early_gaps > 0)
      printf("warning:      %" PRIu64 " calls missing in %" PRIu64 " gaps in all\n", g.missing,
             g.gaps);
  }
  std::string gaps_json(bool closed_cleanly) const {
    Gaps g = gaps(closed_cleanly);
    std::string listed;
    for (const Gap& gap : g.listed) {
      listed += listed.empty() ? "" : ", ";
      listed += JsonObject()
                    .num("first", gap.first)
                    .num("last", gap.last)
                    .str("cause", gap.lost_while_tracing ? "lost while tracing"
                                                         : "lost before the capture was cut")
                    .done();
    }
    return JsonObject()
        .num("calls", g.missing)
        .num("gaps", g.gaps)
        .raw("first_gaps", "[" + listed + "]")
        .done();
  }
  void on_blob(const format::Blob& b) override {
    ++blobs;
    blob_bytes += b.data.size();
  }
  // Frames are counted at their calls (consumers::ends_frame); the records
  // give a live trace's app frame numbers.
  void on_frame(const format::Frame& f) override {
    if (f.has_app_frame) {
      if (!app_frames) first_app_frame = f.app_frame;
      last_app_frame = f.app_frame;
      app_frames = true;
    }
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
  // Its seqs have gaps on purpose: not calls lost (Header.flight_recorder).
  bool flight_recorder = false;
  format::Stats stats;
  // --json: the parts as they came.
  std::string header = "null", threads, contexts;

 private:
  bool json_;
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

int info(const std::string& path, bool json) {
  format::ChunkReader reader;
  if (!open_trace(kName, path, &reader)) return kExitFailure;
  InfoCollector info(json);
  format::ReadStatus status;
  bool ok = format::read_trace_prefetched(reader, info, &status);
  struct stat st {};
  uint64_t file_bytes = stat(path.c_str(), &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0;
  bool cut_short = status.state == format::ReadState::kCutShort;
  // A trace cut short has no Stats record: its compression is that of the
  // chunks read (up to the cut), and the writer's stalls were never written.
  uint64_t stored = cut_short ? status.offset : file_bytes;
  uint64_t uncompressed =
      info.have_stats && !cut_short ? info.stats.bytes_uncompressed : status.payload_bytes;
  double bytes_per_call =
      info.calls != 0 ? static_cast<double>(file_bytes) / static_cast<double>(info.calls) : 0.0;
  const char* completeness = status.closed_cleanly ? "closed cleanly"
                             : cut_short           ? "cut short (the app crashed or was killed)"
                                                   : "no index";
  if (json) {
    JsonObject o;
    o.raw("header", info.header)
        .raw("threads", "[" + info.threads + "]")
        .raw("contexts", "[" + info.contexts + "]")
        .num("calls", info.calls)
        .num("frames", info.frames)
        .boolean("indexed", reader.index() != nullptr);
    if (info.app_frames)
      o.raw(
          "app_frames",
          JsonObject().num("first", info.first_app_frame).num("last", info.last_app_frame).done());
    else
      o.raw("app_frames", "null");
    o.num("duration_ns", info.last_ns)
        .num("blobs", info.blobs)
        .num("blob_bytes", info.blob_bytes)
        .num("images", info.images)
        .num("chunks", status.chunks)
        .num("file_bytes", file_bytes)
        .real("bytes_per_call", bytes_per_call);
    if (stored != 0 && uncompressed != 0)
      o.raw("compression",
            JsonObject()
                .real("ratio", static_cast<double>(uncompressed) / static_cast<double>(stored))
                .num("uncompressed_bytes", uncompressed)
                .boolean("of_part_read", cut_short)
                .done());
    else
      o.raw("compression", "null");
    if (info.have_stats)
      o.raw(
          "writer_stall",
          JsonObject().num("count", info.stats.stall_count).num("ns", info.stats.stall_ns).done());
    else
      o.raw("writer_stall", "null");
    o.raw("missing_calls", info.gaps_json(status.closed_cleanly))
        .boolean("complete", status.closed_cleanly)
        .str("state", ok ? completeness : "unreadable")
        .str("error", ok ? "" : status.message);
    printf("%s\n", o.done().c_str());
    return finish_reading(kName, path, ok, status);
  }
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
  if (file_bytes != 0)
    printf("file size:    %.2f MB (%.1f bytes per call)\n", static_cast<double>(file_bytes) / 1e6,
           bytes_per_call);
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
  if (!info.flight_recorder) info.print_gaps(status.closed_cleanly);
  printf("complete:     %s\n", status.closed_cleanly ? "yes (closed cleanly)"
                               : cut_short ? "no: cut short (the app crashed or was killed)"
                                           : "no index");
  return finish_reading(kName, path, ok, status);
}

// --requirements: what the trace needs of a driver, alone.
// With a --portable profile: whether the needs are within it (exit 1 when not).
int requirements(const std::string& path, bool json, const std::string& profile) {
  std::optional<consumers::DriverCapabilities> offered;
  if (!profile.empty()) offered = consumers::profile_capabilities(profile);
  format::ChunkReader reader;
  if (!open_trace(kName, path, &reader)) return kExitFailure;
  consumers::RequirementsScan scan;
  format::ReadStatus status;
  bool ok = format::read_trace_prefetched(reader, scan, &status);
  std::vector<std::string> beyond;
  if (ok) {
    consumers::Requirements found = scan.result();
    if (offered) beyond = consumers::missing_requirements(found, *offered);
    if (json) {
      std::string text = consumers::requirements_json(found);
      if (offered) {
        // The object with the profile's verdict in it, its strings escaped
        // as requirements_json escapes its own.
        std::string more = ", \"profile\": ";
        consumers::append_json_string(more, profile);
        more += ", \"beyond_profile\": [";
        for (size_t i = 0; i < beyond.size(); ++i) {
          if (i != 0) more += ", ";
          consumers::append_json_string(more, beyond[i]);
        }
        text.insert(text.rfind('}'), more + "]");
      }
      printf("%s\n", text.c_str());
    } else {
      fputs(consumers::requirements_text(found).c_str(), stdout);
      if (offered && beyond.empty()) printf("profile:      within %s\n", profile.c_str());
      for (const std::string& b : beyond)
        printf("profile:      beyond %s: %s\n", profile.c_str(), b.c_str());
    }
  }
  int status_code = finish_reading(kName, path, ok, status);
  return status_code == kExitOk && !beyond.empty() ? kExitFailure : status_code;
}

}  // namespace

void register_info(Commands& commands) {
  struct InfoOptions {
    std::string path;
    bool json = false;
    bool requirements = false;
    std::string profile;
  };
  auto options = std::make_shared<InfoOptions>();
  CommandLine& line = commands.add(
      kName, "what a trace holds: process, contexts, frames, calls, bytes",
      [options](const CommandLine&) {
        return options->requirements ? requirements(options->path, options->json, options->profile)
                                     : info(options->path, options->json);
      });
  CLI::App& app = line.app();
  app.description(
      "Prints the header (process, command line, driver), threads, contexts,\n"
      "frames, calls, bytes, compression ratio and the writer's stall time.");
  app.add_flag("--json", options->json, "print the same as one JSON object");
  app.add_flag("--requirements", options->requirements,
               "print instead what the trace needs of a driver: the GLES version (contexts, "
               "shaders' #version, functions), the extensions it uses (functions, shaders' "
               "#extension) and the GL_MAX_* limits it goes up to, each with the call that "
               "needs it");
  std::vector<std::string> profiles;
  for (const api::Profile& p : api::kProfiles) profiles.emplace_back(p.name);
  app.add_option("--profile", options->profile,
                 "with --requirements: say whether they are within a --portable profile "
                 "(spec/portable_profiles.toml), and each need beyond it (exit 1)")
      ->type_name("PROFILE")
      ->check(one_of(profiles));
  app.add_option("TRACE", options->path, "the trace")->required();
}

}  // namespace gltrace::cli
