// gltrace replay --profile on real traces (Mesa llvmpipe and softpipe,
// surfaceless): gltrace-heavy-draw's one draw ten times heavier than the
// others tops each frame's most expensive draws on both drivers, each
// frame's draws' GPU times add up to its GPU time, and --perfetto's GPU
// events (decoded by protoc against proto/perfetto_subset.proto) each lie
// inside their frame and name a call the timeline has.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "support/subprocess.h"
#include "support/tools.h"

namespace gltrace::test {
namespace {

using Json = nlohmann::json;

class Profile : public ::testing::Test {
 protected:
  // Traces gltrace-heavy-draw (ARGS) into dir/heavy.gltrace.
  std::string trace_heavy(const std::vector<std::string>& args) {
    std::string trace = env_.dir + "/heavy.gltrace";
    std::vector<std::string> command = {"trace", "-o", trace, "--",
                                        build_bin("gltrace-heavy-draw")};
    command.insert(command.end(), args.begin(), args.end());
    ProcessResult r = gltrace(env_, command);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return trace;
  }

  // replay --profile=TABLES --profile-format json --profile-output FILE; the tables.
  Json profile(const std::string& trace, const std::string& tables,
               const std::vector<std::string>& more = {}) {
    std::string out = env_.dir + "/profile.json";
    std::vector<std::string> command = {"replay",           "--profile=" + tables,
                                        "--profile-format", "json",
                                        "--profile-top",    "0",
                                        "--profile-output", out};
    command.insert(command.end(), more.begin(), more.end());
    command.push_back(trace);
    ProcessResult r = gltrace(env_, command);
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    std::ifstream in(out);
    return Json::parse(in, nullptr, false);
  }

  // In the frames after the first (where shaders compile), the heavy draw,
  // each frame's 4th glDrawArrays, is the most expensive work of nearly
  // every frame (a busy machine may stall a rasterizer thread in one), and
  // its median time is well above the other draws'; and each frame's draws'
  // times add up to its GPU time.
  void expect_heavy_on_top(const Json& tables, int frames) {
    ASSERT_TRUE(tables.is_object());
    std::map<uint64_t, std::vector<Json>> by_frame;
    for (const Json& row : tables["draws"]) by_frame[row["frame"].get<uint64_t>()].push_back(row);
    ASSERT_EQ(by_frame.size(), static_cast<size_t>(frames));
    int on_top = 0;
    std::vector<double> heavy_ms, other_ms;
    for (const auto& [frame, rows] : by_frame) {
      // Each frame: a clear, then 6 draws; the table is sorted by GPU time.
      ASSERT_EQ(rows.size(), 7u) << "frame " << frame;
      std::vector<uint64_t> draws;
      for (const Json& r : rows)
        if (r["function"] == "glDrawArrays") draws.push_back(r["call"].get<uint64_t>());
      std::sort(draws.begin(), draws.end());
      ASSERT_EQ(draws.size(), 6u);
      uint64_t heavy = draws[3];
      if (frame == 0) continue;
      on_top += rows[0]["call"].get<uint64_t>() == heavy ? 1 : 0;
      for (const Json& r : rows)
        if (r["function"] == "glDrawArrays")
          (r["call"].get<uint64_t>() == heavy ? heavy_ms : other_ms)
              .push_back(r["gpu ms"].get<double>());
    }
    EXPECT_GE(on_top, frames - 2) << Json(tables["draws"]).dump();
    auto median = [](std::vector<double> v) {
      std::sort(v.begin(), v.end());
      return v[v.size() / 2];
    };
    EXPECT_GT(median(heavy_ms), 4 * median(other_ms)) << Json(tables["draws"]).dump();
    for (const Json& f : tables["frames"]) {
      if (f["gpu ms"].is_null()) continue;
      double span = f["gpu ms"].get<double>(), busy = f["gpu busy ms"].get<double>();
      EXPECT_LE(busy, span * 1.0001) << f.dump();
      EXPECT_GE(busy, 0.8 * span) << f.dump();
    }
  }

  IsolatedEnv env_;
};

TEST_F(Profile, TheHeavyDrawTopsEveryFrameOnLlvmpipe) {
  // llvmpipe stamps a query in every tile and keeps the last one's, the
  // latest of its rasterizer threads': one thread keeps a draw's two stamps
  // from one tile (docs/replay.md). The heavy draw takes longer than a
  // scheduler's time slice, which a light draw preempted on a busy machine
  // may gain.
  env_.vars["LP_NUM_THREADS"] = "1";
  std::string trace = trace_heavy({"--frames", "6", "--iterations", "800"});
  expect_heavy_on_top(profile(trace, "frames,draws"), 6);
}

TEST_F(Profile, TheHeavyDrawTopsEveryFrameOnSoftpipe) {
  // softpipe draws on the calling thread: fewer iterations keep it quick.
  std::string trace = trace_heavy({"--frames", "4", "--iterations", "8"});
  expect_heavy_on_top(profile(trace, "frames,draws", {"--driver", "softpipe"}), 4);
}

TEST_F(Profile, TablesAggregateByProgramPassAndFunction) {
  std::string trace = trace_heavy({"--frames", "2"});
  Json tables = profile(trace, "all");
  ASSERT_TRUE(tables.is_object());
  // One program drew everything; one pass a frame, into the window.
  ASSERT_EQ(tables["programs"].size(), 1u) << tables["programs"].dump();
  EXPECT_EQ(tables["programs"][0]["draws"], 12);
  EXPECT_EQ(tables["programs"][0]["vertices"], 36);
  ASSERT_EQ(tables["passes"].size(), 2u);
  EXPECT_EQ(tables["passes"][0]["framebuffer"], "window");
  EXPECT_EQ(tables["passes"][0]["work"], 7);
  bool draws_counted = false;
  for (const Json& f : tables["functions"])
    if (f["function"] == "glDrawArrays") draws_counted = f["calls"] == 12;
  EXPECT_TRUE(draws_counted) << tables["functions"].dump();
  std::string summary = tables["summary"].dump();
  EXPECT_NE(summary.find("GL_EXT_disjoint_timer_query"), std::string::npos) << summary;
}

// One packet of protoc's text output.
struct Packet {
  std::string text;
  uint64_t field(const std::string& name) const {
    std::smatch m;
    std::regex pattern("\\b" + name + ": (\\d+)");
    return std::regex_search(text, m, pattern) ? std::stoull(m[1]) : 0;
  }
  std::string extra(const std::string& name) const {
    std::smatch m;
    std::regex pattern("name: \"" + name + "\"\\s+value: \"([^\"]*)\"");
    return std::regex_search(text, m, pattern) ? m[1].str() : "";
  }
};

TEST_F(Profile, PerfettoGpuEventsLieInTheirFramesAndNameTheirCalls) {
  std::string trace = env_.dir + "/demo.gltrace";
  ProcessResult r =
      gltrace(env_, {"trace", "-o", trace, "--", build_bin("gltrace-demo"), "--frames", "4"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string timeline = env_.dir + "/demo.perfetto-trace";
  r = gltrace(env_, {"replay", "--profile=summary", "--perfetto", timeline, trace});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  r = run_process({"/bin/sh", "-c",
                   "protoc --decode=perfetto.protos.Trace -I " GLTRACE_PERFETTO_PROTO_DIR
                   " perfetto_subset.proto < " +
                       timeline});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<Packet> packets;
  std::istringstream in(r.out);
  for (std::string line; std::getline(in, line);) {
    if (line == "packet {") packets.emplace_back();
    if (!packets.empty()) packets.back().text += line + "\n";
  }
  // Interned names: the "call" annotation's, the queues'.
  uint64_t call_iid = 0;
  std::map<uint64_t, std::string> specifications;
  std::regex annotation_name("debug_annotation_names \\{\\s+iid: (\\d+)\\s+name: \"call\"");
  std::regex specification("gpu_specifications \\{\\s+iid: (\\d+)\\s+name: \"([^\"]*)\"");
  for (const Packet& p : packets) {
    std::smatch m;
    if (std::regex_search(p.text, m, annotation_name)) call_iid = std::stoull(m[1]);
    for (std::sregex_iterator it(p.text.begin(), p.text.end(), specification), end; it != end; ++it)
      specifications[std::stoull((*it)[1])] = (*it)[2];
  }
  ASSERT_NE(call_iid, 0u);
  // The calls the CPU slices name.
  std::set<uint64_t> calls;
  std::regex call_annotation("name_iid: " + std::to_string(call_iid) + "\\s+uint_value: (\\d+)");
  for (const Packet& p : packets)
    for (std::sregex_iterator it(p.text.begin(), p.text.end(), call_annotation), end; it != end;
         ++it)
      calls.insert(std::stoull((*it)[1]));
  // The GPU's events by queue; every one on the GPU's clock (65).
  std::map<uint64_t, std::pair<uint64_t, uint64_t>> frames;  // submission -> [start, end)
  std::vector<Packet> work;
  size_t counters = 0, clock_snapshots = 0;
  for (const Packet& p : packets) {
    if (p.text.find("gpu_counter_event {") != std::string::npos) ++counters;
    if (p.text.find("clock_id: 65") != std::string::npos) ++clock_snapshots;
    if (p.text.find("gpu_render_stage_event {") == std::string::npos) continue;
    EXPECT_EQ(p.field("timestamp_clock_id"), 65u) << p.text;
    const std::string& queue = specifications[p.field("hw_queue_iid")];
    uint64_t start = p.field("timestamp"), end = start + p.field("duration");
    if (queue == "GPU frames") frames[p.field("submission_id")] = {start, end};
    if (queue == "GPU work") work.push_back(p);
  }
  EXPECT_EQ(frames.size(), 4u);
  EXPECT_GE(counters, 4u);
  EXPECT_GE(clock_snapshots, 1u);
  ASSERT_GT(work.size(), 40u);  // the demo's draws and clears, 4 frames of them
  for (const Packet& w : work) {
    uint64_t call = std::stoull(w.extra("call"));
    EXPECT_TRUE(calls.contains(call)) << "GPU work of call " << call << " without its call";
    auto frame = frames.find(w.field("submission_id"));
    ASSERT_NE(frame, frames.end()) << w.text;
    uint64_t start = w.field("timestamp"), end = start + w.field("duration");
    EXPECT_GE(start, frame->second.first) << w.text;
    EXPECT_LE(end, frame->second.second) << w.text;
  }
}

// trace --gpu-time: every draw and clear of gltrace-heavy-draw has its GPU
// time in the trace (the last frames' too, read at exit), the heavy draw
// on top in nearly every frame; export makes them GPU events naming their
// calls; the trace replays as before.
TEST_F(Profile, ACaptureRecordsEveryGpuTime) {
  std::string trace = env_.dir + "/gpu.gltrace";
  env_.vars["LP_NUM_THREADS"] = "1";  // as in TheHeavyDrawTopsEveryFrameOnLlvmpipe
  ProcessResult r =
      gltrace(env_, {"trace", "--gpu-time", "--framebuffer", "swap", "-o", trace, "--",
                     build_bin("gltrace-heavy-draw"), "--frames", "6", "--iterations", "800"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = gltrace(env_, {"dump", trace});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // seq -> function of the calls, and their GPU times.
  std::map<uint64_t, std::string> functions;
  std::map<uint64_t, double> gpu_ms;
  std::regex call_line("^(\\d+) (gl\\w+)\\(");
  std::regex gpu_line("^// gpu time of call (\\d+): ([0-9.]+) ms");
  std::istringstream in(r.out);
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (std::regex_search(line, m, call_line)) functions[std::stoull(m[1])] = m[2];
    if (std::regex_search(line, m, gpu_line)) gpu_ms[std::stoull(m[1])] = std::stod(m[2]);
  }
  size_t work = 0;
  for (const auto& [seq, name] : functions)
    if (name == "glDrawArrays" || name == "glClear") {
      ++work;
      EXPECT_TRUE(gpu_ms.contains(seq)) << "no GPU time for call " << seq << " " << name;
    }
  EXPECT_EQ(work, 6u * 7u);
  EXPECT_EQ(gpu_ms.size(), work);
  // Frame by frame (a clear, then 6 draws, the 4th heavy).
  int on_top = 0;
  std::vector<uint64_t> draws;
  for (const auto& [seq, name] : functions)
    if (name == "glDrawArrays") draws.push_back(seq);
  for (size_t frame = 1; frame < 6; ++frame) {
    uint64_t heavy = draws[frame * 6 + 3];
    bool top = true;
    for (size_t d = 0; d < 6; ++d)
      if (draws[frame * 6 + d] != heavy && gpu_ms[draws[frame * 6 + d]] >= gpu_ms[heavy])
        top = false;
    on_top += top ? 1 : 0;
  }
  EXPECT_GE(on_top, 4) << r.out;
  r = gltrace(env_, {"stats", trace});
  EXPECT_TRUE(contains(r.out, "function (GPU time)")) << r.out;
  // Exported: a GPU event per time, each naming a call whose slice says its number.
  std::string timeline = env_.dir + "/gpu.perfetto-trace";
  r = gltrace(env_, {"export", "--compression", "none", "-o", timeline, trace});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = run_process({"/bin/sh", "-c",
                   "protoc --decode=perfetto.protos.Trace -I " GLTRACE_PERFETTO_PROTO_DIR
                   " perfetto_subset.proto < " +
                       timeline});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(count_occurrences(r.out, "gpu_render_stage_event {"), work);
  EXPECT_GE(count_occurrences(r.out, "clock_id: 65"), 1u);
  for (const auto& [seq, ms] : gpu_ms)
    EXPECT_TRUE(contains(r.out, "value: \"" + std::to_string(seq) + "\"")) << seq;
  // The replay reads past the GPU times, frame for frame.
  r = gltrace(env_, {"replay", "--compare", trace});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "6 frames identical")) << r.out;
}

TEST_F(Profile, ItsOptionsGoWithIt) {
  std::string trace = trace_heavy({"--frames", "1"});
  ProcessResult r = gltrace(env_, {"replay", "--perfetto", env_.dir + "/x", trace});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "go with --profile")) << r.err;
  r = gltrace(env_, {"replay", "--profile=draws,bogus", trace});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "no table 'bogus'")) << r.err;
  r = gltrace(env_, {"replay", "--profile", "--perfetto", "/nonexistent/dir/x", trace});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(contains(r.err, "cannot write /nonexistent/dir/x")) << r.err;
}

}  // namespace
}  // namespace gltrace::test
