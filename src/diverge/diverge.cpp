#include "diverge/diverge.h"

#include <sys/stat.h>
#include <sys/wait.h>

#include <cinttypes>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <thread>

#include "common/child_process.h"
#include "consumers/png.h"
#include "glreplay/glreplay.h"
#include "glreplay/image_tolerance.h"
#include "gltrace/api/roles.h"
#include "view/trace_model.h"
#include "view/worker_process.h"

namespace gltrace::diverge {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr int kExitSame = 0;
constexpr int kExitDiffers = 1;
constexpr int kExitCannotRun = 2;

// Calls stepped one by one in the frame where the state first differs.
constexpr uint64_t kMaxStepped = 50000;
constexpr size_t kMaxCallText = 240;

// One replay of the trace: a driver.
struct Side {
  std::string label;    // "A", "B", or "replay" against the trace
  std::string driver;   // --driver ("" : the default)
  std::string dir;      // its files in the work folder
  std::string strings;  // the driver's, from its replay's log
  std::map<uint64_t, json> outcomes;
  ChildResult child;
};

struct Finding {
  uint64_t call = 0;
  std::string function;
  std::vector<std::string> differences;
};

// What the run found, printed and written as JSON.
struct Report {
  std::vector<Finding> results;  // the first `listed` calls answered otherwise
  uint64_t results_compared = 0, results_differing = 0;
  std::optional<Finding> first_error;  // one side: the replay's first GL error
  uint64_t errors = 0;
  std::optional<Finding> state;
  bool state_checked = false;
  std::string state_note;          // why it was not, or stopped early
  std::vector<std::string> ended;  // sides whose replay crashed or hung: what and where
  uint64_t frames_identical = 0, frames_within = 0, frames_beyond = 0;
  std::optional<uint64_t> first_frame;      // beyond the tolerance
  std::optional<json> first_frame_metrics;  // optional: json's constructor may throw
  std::optional<Finding> draw;              // the first draw beyond the tolerance
  std::optional<json> draw_metrics;
  std::string draw_note;
};

std::string view_command(const std::string& trace, uint64_t call) {
  return "gltrace view " + trace + " --call " + std::to_string(call);
}

// The driver line of a replay's log: "driver: RENDERER; VERSION; VENDOR".
std::string driver_strings(const std::string& log) {
  std::ifstream in(log);
  for (std::string line; std::getline(in, line);)
    if (line.rfind("driver: ", 0) == 0 && line.find("captured on another") == std::string::npos)
      return line.substr(8);
  return "";
}

bool read_outcomes(const std::string& path, std::map<uint64_t, json>* out, std::string* error) {
  std::ifstream in(path);
  if (!in) {
    *error = path + ": not written";
    return false;
  }
  uint64_t number = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    // The last line of a replay that crashed may be cut short.
    if (in.eof() && !line.empty()) break;
    json entry = json::parse(line, nullptr, false);
    if (entry.is_discarded() || !entry.is_object() || !entry["call"].is_number_unsigned()) {
      *error = path + ":" + std::to_string(number) + ": not an outcome line";
      return false;
    }
    uint64_t call = entry["call"].get<uint64_t>();
    (*out)[call] = std::move(entry);
  }
  return true;
}

std::string text_of(const json& entry, const char* key) {
  return entry.is_object() && entry.contains(key) ? entry[key].get<std::string>() : "";
}

// Output `param`'s entry of an outcome (null when it has none).
const json* output_of(const json& entry, uint64_t param) {
  if (!entry.is_object() || !entry.contains("outputs")) return nullptr;
  for (const json& o : entry["outputs"])
    if (o["param"].get<uint64_t>() == param) return &o;
  return nullptr;
}

// ---- images ----

struct Image {
  uint32_t width = 0, height = 0;
  std::vector<uint8_t> rgba;
};

enum class Match { kIdentical, kWithin, kBeyond };

// `a` against `b` (whose edges are excused, as a trace image's are).
Match compare_images(const Image& a, const Image& b, const glreplay::Tolerance& tolerance,
                     json* metrics) {
  if (a.width != b.width || a.height != b.height) {
    *metrics = {{"size_differs", std::to_string(a.width) + "x" + std::to_string(a.height) +
                                     " against " + std::to_string(b.width) + "x" +
                                     std::to_string(b.height)}};
    return Match::kBeyond;
  }
  if (a.rgba == b.rgba) return Match::kIdentical;
  glreplay::ImageMetrics m =
      glreplay::measure_images(a.rgba.data(), b.rgba.data(), a.width, a.height, tolerance);
  *metrics = {{"pixels", m.pixels},
              {"edge_pixels", m.edge_pixels},
              {"max_channel_difference", m.max_channel_difference},
              {"psnr", m.psnr},
              {"ssim", m.ssim}};
  return glreplay::within_tolerance(m, tolerance, uint64_t{a.width} * a.height) ? Match::kWithin
                                                                                : Match::kBeyond;
}

std::string metrics_text(const json& m) {
  if (m.contains("size_differs")) return "sizes differ: " + m["size_differs"].get<std::string>();
  char text[160];
  snprintf(text, sizeof text,
           "%" PRIu64 " pixels differ (%" PRIu64
           " on edges), max channel difference %d, PSNR %.2f dB, SSIM %.4f",
           m.value("pixels", uint64_t{0}), m.value("edge_pixels", uint64_t{0}),
           m.value("max_channel_difference", 0), m.value("psnr", 0.0), m.value("ssim", 1.0));
  return text;
}

// Pixels an app read (glReadPixels as RGBA8, the outcome's images): the
// same when within the tolerance, else their metrics.
std::optional<std::string> pixels_differ(const std::string& a, const std::string& b,
                                         const glreplay::Tolerance& tolerance) {
  Image ia, ib;
  std::string error;
  if (!consumers::read_png(a, &ia.width, &ia.height, &ia.rgba, &error) ||
      !consumers::read_png(b, &ib.width, &ib.height, &ib.rgba, &error))
    return error;
  json metrics;
  if (compare_images(ia, ib, tolerance, &metrics) != Match::kBeyond) return std::nullopt;
  return metrics_text(metrics);
}

// What differs between two sides' answers to one call.
std::vector<std::string> differences(const json& a, const json& b, const Side& sa, const Side& sb,
                                     const glreplay::Tolerance& tolerance) {
  std::vector<std::string> out;
  auto differ = [&](const std::string& what, const std::string& x, const std::string& y) {
    if (x != y)
      out.push_back(what + ": " + sa.label + " " + (x.empty() ? "none" : x) + ", " + sb.label +
                    " " + (y.empty() ? "none" : y));
  };
  auto replayed = [](const json& e) {
    std::string why = text_of(e, "not_replayed");
    return why.empty() ? std::string("yes") : "no: " + why;
  };
  differ("replayed", replayed(a), replayed(b));
  differ("result", text_of(a, "result"), text_of(b, "result"));
  differ("GL error", text_of(a, "error"), text_of(b, "error"));
  std::vector<uint64_t> params;
  for (const json* e : {&a, &b})
    if (e->is_object() && e->contains("outputs"))
      for (const json& o : (*e)["outputs"]) params.push_back(o["param"].get<uint64_t>());
  std::sort(params.begin(), params.end());
  params.erase(std::unique(params.begin(), params.end()), params.end());
  for (uint64_t p : params) {
    const json* x = output_of(a, p);
    const json* y = output_of(b, p);
    if (x != nullptr && y != nullptr && x->contains("image") && y->contains("image")) {
      if (auto how = pixels_differ(text_of(*x, "image"), text_of(*y, "image"), tolerance))
        out.push_back("output " + std::to_string(p) + ": the pixels read differ beyond the " +
                      "tolerance: " + *how);
      continue;
    }
    differ("output " + std::to_string(p), x != nullptr ? text_of(*x, "value") : "",
           y != nullptr ? text_of(*y, "value") : "");
  }
  return out;
}

// What differs between a replay's answers to one call and the trace's.
std::vector<std::string> differences_from_trace(const json& e,
                                                const glreplay::Tolerance& tolerance) {
  std::vector<std::string> out;
  auto differ = [&](const std::string& what, const std::string& replayed,
                    const std::string& recorded) {
    if (!recorded.empty() && replayed != recorded)
      out.push_back(what + ": the replay " + replayed + ", the trace " + recorded);
  };
  if (e.contains("not_replayed")) out.push_back("not replayed: " + text_of(e, "not_replayed"));
  differ("result", text_of(e, "result"), text_of(e, "recorded_result"));
  if (!e.contains("outputs")) return out;
  for (const json& o : e["outputs"]) {
    std::string param = "output " + std::to_string(o["param"].get<uint64_t>());
    if (o.contains("image") && o.contains("recorded_image")) {
      if (auto how = pixels_differ(text_of(o, "image"), text_of(o, "recorded_image"), tolerance))
        out.push_back(param + ": the pixels read differ beyond the tolerance: " + *how);
      continue;
    }
    differ(param, text_of(o, "value"), text_of(o, "recorded"));
  }
  return out;
}

void compare_results(const std::vector<Side>& sides, size_t listed,
                     const glreplay::Tolerance& tolerance, Report* report) {
  auto add = [&](uint64_t call, const json& entry, std::vector<std::string> what) {
    if (what.empty()) return;
    ++report->results_differing;
    if (report->results.size() < listed)
      report->results.push_back({call, text_of(entry, "function"), std::move(what)});
  };
  if (sides.size() == 1) {
    for (const auto& [call, entry] : sides[0].outcomes) {
      if (entry.contains("error")) {
        if (report->errors++ == 0)
          report->first_error =
              Finding{call, text_of(entry, "function"), {"GL error " + text_of(entry, "error")}};
      }
      if (!entry.contains("recorded_result") && !entry.contains("outputs") &&
          !entry.contains("not_replayed"))
        continue;
      ++report->results_compared;
      add(call, entry, differences_from_trace(entry, tolerance));
    }
    return;
  }
  const Side& a = sides[0];
  const Side& b = sides[1];
  static const json kNone;
  auto ia = a.outcomes.begin();
  auto ib = b.outcomes.begin();
  while (ia != a.outcomes.end() || ib != b.outcomes.end()) {
    uint64_t call;
    const json* x = &kNone;
    const json* y = &kNone;
    if (ib == b.outcomes.end() || (ia != a.outcomes.end() && ia->first < ib->first)) {
      call = ia->first;
      x = &(ia++)->second;
    } else if (ia == a.outcomes.end() || ib->first < ia->first) {
      call = ib->first;
      y = &(ib++)->second;
    } else {
      call = ia->first;
      x = &(ia++)->second;
      y = &(ib++)->second;
    }
    ++report->results_compared;
    add(call, x->is_object() ? *x : *y, differences(*x, *y, a, b, tolerance));
  }
}

// Two drivers: each frame both replays wrote, in order.
void compare_frames(const std::vector<Side>& sides, const glreplay::Tolerance& tolerance,
                    Report* report) {
  for (uint64_t frame = 0;; ++frame) {
    std::string pa = glreplay::snapshot_png(sides[0].dir + "/frames", frame);
    std::string pb = glreplay::snapshot_png(sides[1].dir + "/frames", frame);
    if (!fs::exists(pa) || !fs::exists(pb)) break;
    Image a, b;
    std::string error;
    if (!consumers::read_png(pa, &a.width, &a.height, &a.rgba, &error) ||
        !consumers::read_png(pb, &b.width, &b.height, &b.rgba, &error))
      break;
    json metrics;
    switch (compare_images(a, b, tolerance, &metrics)) {
      case Match::kIdentical:
        ++report->frames_identical;
        break;
      case Match::kWithin:
        ++report->frames_within;
        break;
      case Match::kBeyond:
        if (report->frames_beyond++ == 0) {
          report->first_frame = frame;
          report->first_frame_metrics = metrics;
        }
        break;
    }
  }
}

// One driver: the replay's compare report against the trace's images.
void read_compare_report(const std::string& path, Report* report, uint64_t* first_draw) {
  std::ifstream in(path);
  json r = json::parse(in, nullptr, false);
  if (r.is_discarded() || !r.contains("images")) return;
  for (const json& image : r["images"]) {
    std::string verdict = text_of(image, "verdict");
    bool draw = text_of(image, "origin") == "draw";
    if (!draw) {
      if (verdict == "identical")
        ++report->frames_identical;
      else if (verdict == "within tolerance")
        ++report->frames_within;
      else
        ++report->frames_beyond;
    }
    if (verdict != "differs") continue;
    json metrics = image;
    if (draw && *first_draw == 0) {
      *first_draw = image["call"].get<uint64_t>();
      report->draw_metrics = metrics;
    }
    if (!draw && !report->first_frame) {
      report->first_frame = image["frame"].get<uint64_t>();
      report->first_frame_metrics = metrics;
    }
  }
}

// ---- the state workers ----

// The state's items, flattened to "group/key" -> value text.
void flatten(const json& j, const std::string& path, std::map<std::string, std::string>* out) {
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it)
      flatten(it.value(), path.empty() ? it.key() : path + "/" + it.key(), out);
  } else if (j.is_array() && !j.empty() && (j[0].is_object() || j[0].is_array())) {
    for (size_t i = 0; i < j.size(); ++i) flatten(j[i], path + "/" + std::to_string(i), out);
  } else {
    (*out)[path] = j.dump();
  }
}

// What the two drivers say of themselves differs by nature: their versions,
// their config ids. Items one driver's GLES version lacks are left out too.
bool driver_identity(const std::string& key) {
  return key == "egl/gl_version" || key.rfind("egl/display", 0) == 0 || key == "egl/config_id";
}

std::vector<std::string> state_differences(const json& a, const json& b, const Side& sa,
                                           const Side& sb) {
  std::vector<std::string> out;
  if (a.value("ok", false) != b.value("ok", false)) {
    out.push_back("the state: " + sa.label + " " +
                  (a.value("ok", false) ? "read" : text_of(a, "error")) + ", " + sb.label + " " +
                  (b.value("ok", false) ? "read" : text_of(b, "error")));
    return out;
  }
  if (!a.value("ok", false)) return out;
  std::map<std::string, std::string> fa, fb;
  flatten(a["state"], "", &fa);
  flatten(b["state"], "", &fb);
  for (const auto& [key, value] : fa) {
    auto other = fb.find(key);
    if (other == fb.end() || other->second == value || driver_identity(key)) continue;
    out.push_back(key + ": " + sa.label + " " + value + ", " + sb.label + " " + other->second);
  }
  return out;
}

// Runs tasks one at a time on a thread that lives as long as it does: side
// A's requests go there, B's stay on the calling thread, so both workers
// work at once. Not a thread per request: a worker dies with the thread
// that started it (PR_SET_PDEATHSIG is per thread).
class Lane {
 public:
  Lane() : thread_([this] { loop(); }) {}
  ~Lane() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      quit_ = true;
    }
    wake_.notify_all();
    thread_.join();
  }
  Lane(const Lane&) = delete;
  Lane& operator=(const Lane&) = delete;

  std::future<json> run(std::function<json()> task) {
    std::packaged_task<json()> packaged(std::move(task));
    std::future<json> result = packaged.get_future();
    {
      std::lock_guard<std::mutex> lock(mutex_);
      task_ = std::move(packaged);
      pending_ = true;
    }
    wake_.notify_all();
    return result;
  }

 private:
  void loop() {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      wake_.wait(lock, [&] { return pending_ || quit_; });
      if (quit_) return;
      pending_ = false;
      std::packaged_task<json()> task = std::move(task_);
      lock.unlock();
      task();
      lock.lock();
    }
  }

  std::mutex mutex_;
  std::condition_variable wake_;
  std::packaged_task<json()> task_;
  bool pending_ = false, quit_ = false;
  std::thread thread_;
};

// The two state workers. A worker goes back by replaying again from the
// start in its process; a driver (or a layer under it) with a state of its
// own could then replay otherwise, so a search that has to go back starts
// new workers instead (fresh()).
class Workers {
 public:
  Workers(std::vector<std::string> a, std::vector<std::string> b, std::string trace)
      : commands_{std::move(a), std::move(b)}, trace_(std::move(trace)) {
    fresh();
  }
  void fresh() {
    a_ = std::make_unique<view::WorkerProcess>(commands_[0], trace_);
    b_ = std::make_unique<view::WorkerProcess>(commands_[1], trace_);
  }

  // Both at `call`, then `request` on both; the replies in order.
  std::pair<json, json> on_both(uint64_t call, const json& request) {
    std::future<json> ra = lane_.run([&] {
      json go;
      return a_->request_at(call, request, &go);
    });
    json go;
    json rb;
    try {
      rb = b_->request_at(call, request, &go);
    } catch (...) {
      ra.wait();  // the lane's task refers to this frame
      throw;
    }
    return {ra.get(), rb};
  }

 private:
  std::vector<std::string> commands_[2];
  std::string trace_;
  std::unique_ptr<view::WorkerProcess> a_, b_;
  Lane lane_;  // a's requests (declared last: it ends first, while a_ is still there)
};

std::string function_of(const view::TraceModel& model, uint64_t call) {
  std::string name;
  model.find_call(call, [&](const view::CallRef& r) {
    if (r.call.function < api::kFunctionIdLimit && api::kFunctionInfo[r.call.function].name)
      name = api::kFunctionInfo[r.call.function].name;
  });
  return name;
}

void find_state_difference(view::TraceModel& model, Workers& w, const std::vector<Side>& sides,
                           Report* report) {
  const json state = {{"op", "state"}};
  uint64_t total = 0;
  std::vector<view::FrameInfo> frames = model.frames(0, UINT64_MAX, &total);
  report->state_checked = true;
  std::optional<uint64_t> differing_frame;
  for (const view::FrameInfo& f : frames) {
    auto [sa, sb] = w.on_both(f.last_seq, state);
    if (!state_differences(sa, sb, sides[0], sides[1]).empty()) {
      differing_frame = f.number;
      break;
    }
  }
  if (!differing_frame) return;
  // Call by call from the end of the frame before, in new workers.
  const view::FrameInfo& f = frames[*differing_frame];
  w.fresh();
  if (f.number > 0) w.on_both(frames[f.number - 1].last_seq, state);
  std::vector<uint64_t> calls;
  model.for_frame_calls(f.number, 0, std::min<uint64_t>(f.calls, kMaxStepped),
                        [&](const view::CallRef& r) { calls.push_back(r.call.seq); });
  for (uint64_t call : calls) {
    auto [sa, sb] = w.on_both(call, state);
    std::vector<std::string> what = state_differences(sa, sb, sides[0], sides[1]);
    if (what.empty()) continue;
    report->state = Finding{call, function_of(model, call), std::move(what)};
    return;
  }
  report->state_note = "frame " + std::to_string(f.number) +
                       " ends with a different state, but no call of its first " +
                       std::to_string(calls.size()) + " left one";
}

bool image_of(const json& reply, const std::string& path, Image* out, std::string* error) {
  if (!reply.value("ok", false)) {
    *error = text_of(reply, "error");
    return false;
  }
  const auto& bytes = reply["bytes"].get_binary();
  {
    std::ofstream file(path, std::ios::binary);
    file.write(reinterpret_cast<const char*>(bytes.data()),
               static_cast<std::streamsize>(bytes.size()));
  }
  return consumers::read_png(path, &out->width, &out->height, &out->rgba, error);
}

// The first draw of `frame` after which the two framebuffers differ beyond
// the tolerance; its images are kept in `dir`.
void find_draw(view::TraceModel& model, Workers& w, uint64_t frame,
               const glreplay::Tolerance& tolerance, const std::string& dir, Report* report) {
  const view::FrameInfo f = model.frame(frame);
  std::vector<uint64_t> draws;
  model.for_frame_calls(frame, 0, f.calls, [&](const view::CallRef& r) {
    if (api::has_role(r.call.function, api::kRoleDraw | api::kRoleOtherDraw))
      draws.push_back(r.call.seq);
  });
  const json read = {{"op", "framebuffer"}};
  w.fresh();
  for (uint64_t call : draws) {
    auto [ra, rb] = w.on_both(call, read);
    Image ia, ib;
    std::string error;
    if (!image_of(ra, dir + "/draw-a.png", &ia, &error) ||
        !image_of(rb, dir + "/draw-b.png", &ib, &error)) {
      report->draw_note = "call " + std::to_string(call) + ": the framebuffer: " + error;
      return;
    }
    json metrics;
    if (compare_images(ia, ib, tolerance, &metrics) != Match::kBeyond) continue;
    // An image of the difference needs two of one size; the finding stands without it.
    if (ia.width == ib.width && ia.height == ib.height) {
      std::vector<uint8_t> difference = glreplay::difference_image(ia.rgba.data(), ib.rgba.data(),
                                                                   ia.width, ia.height, tolerance);
      std::string ignored;
      consumers::write_png(dir + "/draw-difference.png", ia.width, ia.height, difference.data(),
                           &ignored, false);  // the rows as read_png gave them
    }
    report->draw = Finding{call, function_of(model, call), {}};
    report->draw_metrics = metrics;
    return;
  }
  report->draw_note = "no draw of frame " + std::to_string(frame) +
                      " leaves framebuffers beyond the tolerance (" + std::to_string(draws.size()) +
                      " draws; the difference may come from the frame's end)";
}

// ---- printing ----

std::string call_text(const view::TraceModel& model, uint64_t call) {
  std::string text;
  model.find_call(call, [&](const view::CallRef& r) {
    text = view::TraceModel::match_text(r.call, [&](uint64_t id) { return model.blob_size(id); });
  });
  if (text.size() > kMaxCallText) text = text.substr(0, kMaxCallText) + "...";
  return text;
}

json finding_json(const view::TraceModel& model, const std::string& trace, const Finding& f) {
  return {{"call", f.call},
          {"function", f.function},
          {"text", call_text(model, f.call)},
          {"differences", f.differences},
          {"view", view_command(trace, f.call)}};
}

void print_finding(const view::TraceModel& model, const std::string& trace, const Finding& f,
                   const char* indent) {
  printf("%scall %" PRIu64 " %s\n", indent, f.call, call_text(model, f.call).c_str());
  for (const std::string& d : f.differences) printf("%s  %s\n", indent, d.c_str());
  printf("%s  %s\n", indent, view_command(trace, f.call).c_str());
}

}  // namespace

int run_diverge(const DivergeOptions& options) {
  const char* program = options.program.c_str();
  glreplay::Tolerance tolerance;
  std::string error;
  std::string tolerance_spec =
      options.tolerance.empty() ? glreplay::kDefaultCiTolerance : options.tolerance;
  if (!glreplay::parse_tolerance(tolerance_spec, &tolerance, &error)) {
    fprintf(stderr, "%s: --tolerance: %s\n", program, error.c_str());
    return kExitCannotRun;
  }
  view::TraceModel model;
  if (!model.open(options.trace, &error)) {
    fprintf(stderr, "%s: %s\n", program, error.c_str());
    return kExitCannotRun;
  }
  // The work folder: the one asked for (kept), else a temporary one.
  std::string work = options.output;
  bool temporary = work.empty();
  if (temporary) {
    char name[] = "/tmp/gltrace-diverge-XXXXXX";
    if (mkdtemp(name) == nullptr) {
      fprintf(stderr, "%s: cannot make a temporary folder: %s\n", program, strerror(errno));
      return kExitCannotRun;
    }
    work = name;
  } else {
    std::error_code ec;
    fs::create_directories(work, ec);
    if (ec) {
      fprintf(stderr, "%s: cannot create %s: %s\n", program, work.c_str(), ec.message().c_str());
      return kExitCannotRun;
    }
  }
  struct RemoveWork {
    const std::string& dir;
    bool remove;
    ~RemoveWork() {
      std::error_code ec;
      if (remove) fs::remove_all(dir, ec);
    }
  } remove_work{work, temporary};

  std::vector<Side> sides;
  std::vector<std::string> ended;  // sides that crashed or hung
  std::error_code ec;
  const bool against_trace = options.drivers.size() < 2;
  for (size_t i = 0; i < std::max<size_t>(options.drivers.size(), 1); ++i) {
    Side side;
    side.label = against_trace ? "replay" : std::string(1, static_cast<char>('A' + i));
    side.driver = i < options.drivers.size() ? options.drivers[i] : "";
    side.dir = work + "/" + (against_trace ? std::string("replay") : side.label);
    fs::create_directories(side.dir + "/frames", ec);
    sides.push_back(std::move(side));
  }

  // 1. Each side replays the whole trace once, at once.
  std::vector<std::thread> runs;
  for (Side& side : sides) {
    std::vector<std::string> argv = {options.replayer, "replay", "-n", "--outcomes",
                                     side.dir + "/outcomes.jsonl"};
    if (!side.driver.empty()) argv.insert(argv.end(), {"--driver", side.driver});
    // Against the trace: its images, compared by the replay; else each
    // side's frames, compared here.
    if (against_trace)
      argv.insert(argv.end(),
                  {"--tolerance", tolerance_spec, "--compare-report", side.dir + "/compare.json"});
    else
      argv.insert(argv.end(), {"--snapshot", "all", "-o", side.dir + "/frames"});
    argv.push_back(options.trace);
    runs.emplace_back([&side, argv, timeout = options.timeout] {
      side.child = run_child(argv, side.dir + "/replay.log", timeout);
    });
  }
  for (std::thread& t : runs) t.join();
  model.wait_indexed();
  for (Side& side : sides) {
    std::string log = side.dir + "/replay.log";
    std::string name = side.driver.empty() ? "the default driver" : side.driver;
    if (!side.child.error.empty() || side.child.timed_out || WIFSIGNALED(side.child.status) ||
        (WIFEXITED(side.child.status) && WEXITSTATUS(side.child.status) == 2)) {
      fprintf(stderr, "%s: the replay on %s %s: %s\n", program, name.c_str(),
              side.child.timed_out             ? "did not end in time"
              : WIFSIGNALED(side.child.status) ? "crashed"
              : !side.child.error.empty()      ? "did not start"
                                               : "failed",
              side.child.error.empty() ? log_tail(log).c_str() : side.child.error.c_str());
      // What it wrote before is still compared: a crash is a divergence too.
      if (!side.child.timed_out && !WIFSIGNALED(side.child.status)) return kExitCannotRun;
      ended.push_back(
          side.label + " (" + name + ") " +
          (side.child.timed_out
               ? "did not end within " + std::to_string(static_cast<int>(options.timeout)) + " s"
               : std::string("crashed")) +
          ": " + log_tail(log, 1));
    }
    side.strings = driver_strings(log);
    if (!read_outcomes(side.dir + "/outcomes.jsonl", &side.outcomes, &error)) {
      fprintf(stderr, "%s: %s\n", program, error.c_str());
      return kExitCannotRun;
    }
  }

  Report report;
  report.ended = ended;
  compare_results(sides, options.listed, tolerance, &report);
  uint64_t first_draw_image = 0;
  if (against_trace)
    read_compare_report(sides[0].dir + "/compare.json", &report, &first_draw_image);
  else
    compare_frames(sides, tolerance, &report);

  // 2 and 3: two state workers, stepping together (not after a side hung
  // or crashed: the workers would too).
  if (!against_trace && !report.ended.empty()) {
    report.state_note = "not stepped: a side's replay crashed or hung";
  } else if (!against_trace) {
    std::vector<std::string> worker = {options.replayer, "replay", "--state-worker"};
    auto command = [&](const Side& side) {
      std::vector<std::string> c = worker;
      if (!side.driver.empty()) c.insert(c.end(), {"--driver", side.driver});
      return c;
    };
    Workers workers(command(sides[0]), command(sides[1]), options.trace);
    try {
      find_state_difference(model, workers, sides, &report);
      if (report.first_frame)
        find_draw(model, workers, *report.first_frame, tolerance, work, &report);
    } catch (const view::QueryError& e) {
      report.state_note = "a state worker failed: " + e.message;
    }
  } else {
    report.state_note = "the state is compared between two drivers (give --driver twice)";
    if (first_draw_image != 0) {
      report.draw = Finding{first_draw_image, function_of(model, first_draw_image), {}};
    } else if (report.first_frame) {
      report.draw_note =
          "the trace holds no image after the draws of that frame (capture with --framebuffer "
          "swap,draw, or give two drivers)";
    }
  }

  // The report.
  printf("trace: %s\n", options.trace.c_str());
  for (const Side& side : sides)
    printf("%s: %s (%s)\n", side.label.c_str(),
           side.driver.empty() ? "default" : side.driver.c_str(),
           side.strings.empty() ? "driver strings not printed" : side.strings.c_str());
  if (against_trace) printf("against: the trace's recorded answers and images\n");
  for (const std::string& e : report.ended) printf("ended: %s\n", e.c_str());
  printf("tolerance: %s\n", glreplay::tolerance_text(tolerance).c_str());
  printf("results: %" PRIu64 " of %" PRIu64 " answers differ\n", report.results_differing,
         report.results_compared);
  if (!report.results.empty()) printf("results: the first:\n");
  for (const Finding& f : report.results) print_finding(model, options.trace, f, "  ");
  if (report.errors != 0) {
    printf("errors: the replay raised %" PRIu64 " GL errors; the first:\n", report.errors);
    print_finding(model, options.trace, *report.first_error, "  ");
  }
  if (report.state) {
    printf("state: first differs after:\n");
    print_finding(model, options.trace, *report.state, "  ");
  } else if (report.state_checked && report.state_note.empty()) {
    printf("state: the same at every call stepped (every frame's end)\n");
  }
  if (!report.state_note.empty()) printf("state: %s\n", report.state_note.c_str());
  printf("frames: %" PRIu64 " identical, %" PRIu64 " within the tolerance, %" PRIu64 " beyond\n",
         report.frames_identical, report.frames_within, report.frames_beyond);
  if (report.first_frame) {
    uint64_t last = model.frame(*report.first_frame).last_seq;
    printf("frames: the first beyond: frame %" PRIu64 " (ends at call %" PRIu64 "): %s\n",
           *report.first_frame, last,
           metrics_text(report.first_frame_metrics.value_or(json())).c_str());
  }
  if (report.draw) {
    printf("draw: the first beyond the tolerance:\n");
    print_finding(model, options.trace, *report.draw, "  ");
    printf("  %s\n", metrics_text(report.draw_metrics.value_or(json())).c_str());
    if (!against_trace && !temporary)
      printf("  images: %s/draw-a.png, draw-b.png, draw-difference.png\n", work.c_str());
  }
  if (!report.draw_note.empty()) printf("draw: %s\n", report.draw_note.c_str());

  bool differs = report.results_differing != 0 || report.state || report.frames_beyond != 0 ||
                 report.draw || !report.ended.empty();
  if (!options.json.empty()) {
    json j = {{"trace", options.trace}, {"tolerance", glreplay::tolerance_text(tolerance)}};
    for (const Side& side : sides)
      j["sides"].push_back({{"label", side.label},
                            {"driver", side.driver.empty() ? "default" : side.driver},
                            {"strings", side.strings}});
    j["against_trace"] = against_trace;
    j["ended"] = report.ended;
    j["results"] = {{"compared", report.results_compared},
                    {"differing", report.results_differing},
                    {"first", json::array()}};
    for (const Finding& f : report.results)
      j["results"]["first"].push_back(finding_json(model, options.trace, f));
    j["errors"] = report.errors;
    if (report.first_error)
      j["first_error"] = finding_json(model, options.trace, *report.first_error);
    j["state"] = report.state ? finding_json(model, options.trace, *report.state) : json();
    j["frames"] = {{"identical", report.frames_identical},
                   {"within_tolerance", report.frames_within},
                   {"beyond", report.frames_beyond}};
    if (report.first_frame)
      j["first_frame"] = {{"frame", *report.first_frame},
                          {"metrics", report.first_frame_metrics.value_or(json())}};
    if (report.draw) {
      j["draw"] = finding_json(model, options.trace, *report.draw);
      j["draw"]["metrics"] = report.draw_metrics.value_or(json());
    }
    j["differs"] = differs;
    std::ofstream out(options.json);
    out << j.dump(1) << "\n";
    if (!out) {
      fprintf(stderr, "%s: cannot write %s\n", program, options.json.c_str());
      return kExitCannotRun;
    }
  }
  return differs ? kExitDiffers : kExitSame;
}

}  // namespace gltrace::diverge
