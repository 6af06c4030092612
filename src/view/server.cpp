#include "view/server.h"

#include <httplib.h>
#include <signal.h>
#include <sys/random.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <charconv>
#include <cinttypes>
#include <cmath>
#include <cstring>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <thread>
#include <unordered_map>
#include <vector>

#include "common/vertex_format.h"
#include "consumers/dump.h"
#include "consumers/png.h"
#include "consumers/value_format.h"
#include "gltrace/api/enums.h"
#include "gltrace/api/functions.h"
#include "gltrace/api/roles.h"
#include "view/assets.h"
#include "view/gpu_measure.h"
#include "view/pixels.h"
#include "view/state_worker_pool.h"
#include "view/trace_model.h"

namespace gltrace::view {
namespace {

using json = nlohmann::json;

// Bounds on what one request may ask for ("huge count clamped").
constexpr uint64_t kMaxFrames = 100000;
constexpr uint64_t kMaxCalls = 10000;
constexpr uint64_t kMaxBuckets = 100000;
constexpr uint64_t kMaxSpans = 100000;
constexpr uint64_t kMaxExport = 200000;
constexpr uint64_t kMaxGpuRows = 10000;
constexpr uint64_t kMaxBytes = uint64_t{16} << 20;
// Calls a timeline request decodes at most.
constexpr uint64_t kTimelineCalls = uint64_t{2} << 20;

[[noreturn]] void fail(int status, const std::string& message) {
  throw QueryError{status, message};
}

std::string json_text(const json& value) {
  // Trace strings are bytes: invalid UTF-8 is replaced, never an exception.
  return value.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::optional<uint64_t> parse_u64(const std::string& text, int base = 10) {
  uint64_t value = 0;
  const char* begin = text.data();
  const char* end = begin + text.size();
  if (base == 16 && text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X'))
    begin += 2;
  auto [ptr, ec] = std::from_chars(begin, end, value, base);
  if (ec != std::errc() || ptr != end || begin == end) return std::nullopt;
  return value;
}

uint64_t param(const httplib::Request& req, const char* name, std::optional<uint64_t> fallback,
               int base = 10) {
  if (!req.has_param(name)) {
    if (fallback) return *fallback;
    fail(400, std::string("missing parameter '") + name + "'");
  }
  std::string text = req.get_param_value(name);
  std::optional<uint64_t> value = parse_u64(text, base);
  if (!value)
    fail(400,
         std::string("parameter '") + name + "' is not a number: '" + text.substr(0, 40) + "'");
  return *value;
}

std::optional<uint32_t> optional_u32(const httplib::Request& req, const char* name) {
  if (!req.has_param(name) || req.get_param_value(name).empty()) return std::nullopt;
  uint64_t v = param(req, name, std::nullopt);
  if (v > UINT32_MAX) fail(400, std::string("parameter '") + name + "' out of range");
  return static_cast<uint32_t>(v);
}

std::string hex64(uint64_t value) {
  char text[17];
  snprintf(text, sizeof text, "%016" PRIx64, value);
  return text;
}

const char* function_name(uint32_t function) {
  if (function < api::kFunctionIdLimit && api::kFunctionInfo[function].name != nullptr)
    return api::kFunctionInfo[function].name;
  return nullptr;
}

std::string name_of(const format::Call& call) {
  const char* name = function_name(call.function);
  return name != nullptr ? std::string(name)
                         : "<unknown function " + std::to_string(call.function) + ">";
}

json gl_error(uint32_t error) {
  if (error == 0) return nullptr;
  const char* name = api::enum_name(error, "ErrorCode");
  if (name != nullptr) return name;
  char text[16];
  snprintf(text, sizeof text, "0x%x", error);
  return text;
}

bool is_draw(const format::Call& call) {
  return api::has_role(call.function, api::kRoleDraw | api::kRoleOtherDraw);
}

// A frame's GPU times by call number (for its rows).
using GpuTimes = std::unordered_map<uint64_t, GpuWork>;

json gpu_json(const GpuTimes* gpu, uint64_t seq) {
  if (gpu == nullptr) return nullptr;
  auto it = gpu->find(seq);
  return it != gpu->end() && it->second.has_gpu ? json(it->second.gpu_ns) : json(nullptr);
}

class Handlers {
 public:
  Handlers(TraceModel& model, StateWorkerPool& worker, GpuMeasure& measure)
      : model_(model), worker_(worker), measure_(measure) {}

  // The GPU times of a frame's calls; null when the trace has none.
  std::optional<GpuTimes> gpu_times(uint64_t frame) const {
    if (model_.summary().gpu_calls == 0) return std::nullopt;
    GpuTimes times;
    for (const GpuWork& w : model_.gpu_work_of_frame(frame))
      if (w.has_gpu) times.emplace(w.seq, w);
    return times;
  }

  consumers::BlobSizes blob_sizes(const format::Call& call) const {
    consumers::BlobSizes sizes;
    model_.blob_sizes_of(call, &sizes);
    return sizes;
  }

  json call_row(const CallRef& ref, bool thread_time, const GpuTimes* gpu) const {
    const format::Call& call = ref.call;
    consumers::BlobSizes sizes = blob_sizes(call);
    std::string args, result;
    consumers::format_call_arguments(args, call, sizes);
    std::string name = name_of(call);
    json row = {{"call", call.seq},
                {"pos", ref.pos},
                {"thread", call.thread},
                {"context", call.context},
                {"name", name},
                {"args", args},
                {"start_ns", call.start_ns},
                {"dur_ns", call.duration_ns},
                {"thread_ns", thread_time ? json(call.thread_time_ns) : json(nullptr)},
                {"gpu_ns", gpu_json(gpu, call.seq)},
                {"draw", is_draw(call)},
                {"error", gl_error(call.gl_error)},
                {"depth", ref.depth},
                {"group", ref.group.empty() && !api::has_role(call.function, api::kRoleDebugPush)
                              ? json(nullptr)
                              : json(std::string(ref.group))}};
    if (call.ret != nullptr) {
      consumers::format_result(result, call, sizes);
      row["result"] = result;
    } else {
      row["result"] = nullptr;
    }
    if (call.snapshot) row["snapshot"] = true;
    if (!call.snapshot_inexact.empty())
      row["snapshot_inexact"] = TraceModel::inexact_notes(call.snapshot_inexact).size();
    return row;
  }

  json trace() const {
    TraceSummary s = model_.summary();
    json threads = json::array(), contexts = json::array();
    for (const auto& t : s.threads)
      threads.push_back({{"index", t.index}, {"tid", t.tid}, {"name", t.name}});
    for (const auto& c : s.contexts) {
      // A share group is named by its first context.
      uint32_t group = c.index;
      uint64_t share = c.share_context;
      for (int hops = 0; share != 0 && hops < 16; ++hops) {
        auto it = std::find_if(s.contexts.begin(), s.contexts.end(),
                               [&](const TraceSummary::Context& o) { return o.handle == share; });
        if (it == s.contexts.end()) break;
        group = it->index;
        share = it->share_context;
      }
      contexts.push_back({{"index", c.index},
                          {"api", c.api},
                          {"version", c.api_version},
                          {"gl_version", c.version},
                          {"renderer", c.renderer},
                          {"share_group", group}});
    }
    return {{"path", s.path},
            {"size", s.size},
            {"calls", s.calls},
            {"frames", s.frames},
            {"duration_ns", s.duration_ns},
            {"threads", threads},
            {"contexts", contexts},
            {"process", {{"pid", s.pid}, {"name", s.process_name}, {"cmdline", s.command_line}}},
            {"has_images", s.has_images},
            {"has_thread_time", s.has_thread_time},
            {"snapshot_calls", s.snapshot_calls},
            {"snapshot_inexact", s.snapshot_inexact},
            {"indexing", s.indexing},
            {"live", s.live},
            {"has_gpu_time", s.gpu_calls != 0},
            {"gpu_source", s.gpu_calls != 0 ? json(s.gpu_source) : json(nullptr)},
            {"gpu_ns", s.gpu_calls != 0 ? json(s.gpu_ns) : json(nullptr)},
            {"gpu_calls", s.gpu_calls},
            {"gpu_work_calls", s.gpu_work_calls},
            {"gpu_measure", measure_.status()},
            {"warnings", s.warnings}};
  }

  json frames(const httplib::Request& req) const {
    uint64_t from = param(req, "from", 0);
    uint64_t count = std::min(param(req, "count", 100), kMaxFrames);
    uint64_t total = 0;
    bool thread_time = model_.has_thread_time();
    bool gpu = model_.summary().gpu_calls != 0;
    json list = json::array();
    for (const FrameInfo& f : model_.frames(from, count, &total))
      list.push_back({{"number", f.number},
                      {"first_call", f.first_seq},
                      {"last_call", f.last_seq},
                      {"calls", f.calls},
                      {"start_ns", f.start_ns},
                      {"wall_ns", f.end_ns - f.start_ns},
                      {"call_ns", f.call_ns},
                      {"thread_ns", thread_time ? json(f.thread_ns) : json(nullptr)},
                      {"gpu_ns", gpu ? json(f.gpu_ns) : json(nullptr)},
                      {"gpu_calls", f.gpu_calls},
                      {"thread", f.thread},
                      {"context", f.context},
                      {"has_image", f.image >= 0},
                      {"draws", f.draws},
                      {"errors", f.errors},
                      {"complete", f.complete}});
    return {{"total", total}, {"frames", list}, {"indexing", model_.summary().indexing}};
  }

  static TraceModel::CallFilter filter_of(const httplib::Request& req, const char* regex_param) {
    TraceModel::CallFilter filter;
    if (req.has_param(regex_param)) filter.regex = req.get_param_value(regex_param);
    filter.thread = optional_u32(req, "thread");
    filter.context = optional_u32(req, "context");
    if (!filter.regex.empty()) TraceModel::compile_regex(filter.regex);  // 400 before any work
    return filter;
  }

  // Calls of a frame at filtered positions [from, from+count): visit(ref).
  void selected_calls(uint64_t frame, uint64_t from, uint64_t count,
                      const TraceModel::CallFilter& filter, uint64_t* total,
                      const std::function<void(const CallRef&)>& visit) const {
    FrameInfo f = model_.frame(frame);
    if (filter.empty()) {
      *total = f.calls;
      model_.for_frame_calls(frame, from, count, visit);
      return;
    }
    auto positions = model_.filtered_positions(frame, filter);
    *total = positions->size();
    if (from >= positions->size()) return;
    size_t end = static_cast<size_t>(std::min<uint64_t>(positions->size(), from + count));
    model_.for_frame_positions(
        frame, std::span<const uint32_t>(positions->data() + from, end - from), visit);
  }

  json calls(const httplib::Request& req) const {
    uint64_t frame = param(req, "frame", std::nullopt);
    uint64_t from = param(req, "from", 0);
    uint64_t count = std::min(param(req, "count", 100), kMaxCalls);
    TraceModel::CallFilter filter = filter_of(req, "filter");
    bool thread_time = model_.has_thread_time();
    std::optional<GpuTimes> gpu = gpu_times(frame);
    json rows = json::array();
    uint64_t total = 0;
    selected_calls(frame, from, count, filter, &total, [&](const CallRef& ref) {
      rows.push_back(call_row(ref, thread_time, gpu ? &*gpu : nullptr));
    });
    return {{"frame", frame}, {"total", total}, {"calls", rows}};
  }

  // The next call matching `regex`, or with draw=1 the next draw (its role).
  json find(const httplib::Request& req) const {
    TraceModel::CallMatch matches;
    if (req.has_param("draw") && req.get_param_value("draw") != "0")
      matches = [](const CallRef& ref) { return is_draw(ref.call); };
    else if (req.has_param("regex") && !req.get_param_value("regex").empty())
      matches = model_.text_matches(req.get_param_value("regex"));
    else
      fail(400, "missing parameter 'regex' (or draw=1)");
    bool backward = req.has_param("backward") && req.get_param_value("backward") != "0";
    uint64_t after = param(req, "after", UINT64_MAX);
    auto found = model_.find_next(matches, after, backward);
    if (!found) return {{"call", nullptr}, {"frame", nullptr}};
    return {{"call", found->first}, {"frame", found->second}};
  }

  // An argument by its parameter name.
  static const format::Value* arg(const format::Call& call, const char* name) {
    const char* fn = function_name(call.function);
    if (fn == nullptr) return nullptr;
    const api::FunctionInfo& info = api::kFunctionInfo[call.function];
    for (uint32_t i = 0; i < info.param_count && i < call.args.size(); ++i)
      if (strcmp(info.params[i].name, name) == 0) return &call.args[i];
    return nullptr;
  }
  static std::optional<uint64_t> integer(const format::Value* v) {
    if (v == nullptr) return std::nullopt;
    if (v->kind == format::ValueKind::kUint) return v->uint;
    if (v->kind == format::ValueKind::kSint) return static_cast<uint64_t>(v->sint);
    return std::nullopt;
  }
  // Named in the parameter's registry group: one value has several names
  // (GL_TRIANGLES is also desktop GL's GL_LINE_BIT).
  static std::string enum_text(const format::Call& call, const char* name) {
    const format::Value* value = arg(call, name);
    std::optional<uint64_t> v = integer(value);
    if (!v) return "";
    const api::ParamInfo& param =
        api::kFunctionInfo[call.function].params[value - call.args.data()];
    const char* text = api::enum_name(static_cast<uint32_t>(*v), param.group);
    return text != nullptr ? text : std::to_string(*v);
  }

  // The pixels a texture upload recorded: its bytes (inline or blob).
  std::string upload_bytes(const format::Value* pixels) const {
    if (pixels == nullptr) return {};
    if (pixels->kind == format::ValueKind::kData) return std::string(pixels->bytes());
    if (pixels->kind == format::ValueKind::kBlob) {
      uint64_t total = 0;
      return model_.blob(pixels->blob, 0, UINT64_MAX, &total);
    }
    return {};
  }

  struct Upload {
    bool is_upload = false;
    bool compressed = false;
    std::string why_not;  // empty when decodable
    std::string target, format_name, type_name;
    uint64_t level = 0;
    uint32_t format = 0, type = 0, width = 0, height = 0, depth = 1;

    json info() const {
      return {{"target", target}, {"level", level},        {"width", width},   {"height", height},
              {"depth", depth},   {"format", format_name}, {"type", type_name}};
    }
  };
  static Upload upload_of(const format::Call& call) {
    Upload u;
    if (!api::has_role(call.function, api::kRoleTextureUpload)) return u;
    u.is_upload = true;
    // Compressed data comes with its size; other uploads' size follows from
    // their format and type.
    u.compressed = arg(call, "imageSize") != nullptr;
    u.width = static_cast<uint32_t>(integer(arg(call, "width")).value_or(0));
    u.height = static_cast<uint32_t>(integer(arg(call, "height")).value_or(1));
    u.depth = static_cast<uint32_t>(integer(arg(call, "depth")).value_or(1));
    u.format = static_cast<uint32_t>(integer(arg(call, "format")).value_or(0));
    u.type = static_cast<uint32_t>(integer(arg(call, "type")).value_or(0));
    u.target = enum_text(call, "target");
    u.level = integer(arg(call, "level")).value_or(0);
    u.format_name = u.compressed ? enum_text(call, "internalformat") : enum_text(call, "format");
    u.type_name = enum_text(call, "type");
    const format::Value* pixels = arg(call, u.compressed ? "data" : "pixels");
    if (u.compressed)
      u.why_not = "compressed textures are not decoded by the viewer";
    else if (decodable_pixel_size(u.format, u.type) == 0)
      u.why_not = "the viewer does not decode " + u.format_name + " / " + u.type_name;
    else if (pixels == nullptr ||
             (pixels->kind != format::ValueKind::kData && pixels->kind != format::ValueKind::kBlob))
      u.why_not = "the call uploaded no client memory (a pixel unpack buffer, or NULL)";
    else if (u.width == 0 || u.height == 0 || u.depth == 0)
      u.why_not = "the upload is empty";
    return u;
  }

  json call(const httplib::Request& req) const {
    uint64_t seq = param(req, "call", std::nullopt);
    json out;
    bool thread_time = model_.has_thread_time();
    model_.find_call(seq, [&](const CallRef& ref) {
      const format::Call& call = ref.call;
      consumers::BlobSizes sizes = blob_sizes(call);
      std::string name = name_of(call);
      json args = json::array();
      const api::FunctionInfo* info =
          function_name(call.function) != nullptr ? &api::kFunctionInfo[call.function] : nullptr;
      for (size_t i = 0; i < call.args.size(); ++i) {
        const format::Value& v = call.args[i];
        std::string text;
        consumers::format_argument(text, call, i, sizes);
        bool named = info != nullptr && i < info->param_count;
        json blob = nullptr;
        if (v.kind == format::ValueKind::kBlob)
          blob = {{"id", hex64(v.blob)}, {"size", model_.blob_size(v.blob)}};
        else if (v.kind == format::ValueKind::kData)
          blob = nullptr;
        args.push_back({{"name", named ? info->params[i].name : "arg" + std::to_string(i)},
                        {"type", named ? info->params[i].type : ""},
                        {"value", text},
                        {"blob", blob}});
      }
      json result = nullptr;
      if (call.ret != nullptr) {
        std::string text;
        consumers::format_result(text, call, sizes);
        result = text;
      }
      out = {{"call", call.seq},
             {"frame", ref.frame},
             {"pos", ref.pos},
             {"thread", call.thread},
             {"context", call.context},
             {"name", name},
             {"start_ns", call.start_ns},
             {"dur_ns", call.duration_ns},
             {"thread_ns", thread_time ? json(call.thread_time_ns) : json(nullptr)},
             {"gpu_ns", nullptr},
             {"error", gl_error(call.gl_error)},
             {"result", result},
             {"args", args},
             {"depth", ref.depth},
             {"texture", nullptr},
             {"draw", nullptr}};
      if (call.snapshot) out["snapshot"] = true;
      json notes = json::array();
      for (std::string_view note : TraceModel::inexact_notes(call.snapshot_inexact))
        notes.push_back(std::string(note));
      if (!notes.empty()) out["snapshot_inexact"] = notes;
      if (name == "glShaderSource") {
        std::string source;
        for (const format::Value& v : call.args)
          if (v.kind == format::ValueKind::kStrings)
            for (std::string_view s : v.strings()) source += s;
        out["shader_source"] = source;
      }
      Upload upload = upload_of(call);
      if (upload.is_upload) {
        out["texture"] = upload.info();
        if (upload.why_not.empty())
          out["texture"]["image"] = "/api/call/image?call=" + std::to_string(call.seq);
        else
          out["texture"]["image"] = nullptr, out["texture"]["reason"] = upload.why_not;
      }
      if (is_draw(call)) {
        json count = nullptr;
        if (auto n = integer(arg(call, "count"))) count = *n;
        out["draw"] = {{"mode", enum_text(call, "mode")},
                       {"count", count},
                       {"client_arrays", call.client_arrays.size()},
                       {"vertex_table", "/api/draw/vertices?call=" + std::to_string(call.seq)}};
      }
    });
    json images = json::array();
    for (const ImageInfo& image : model_.images_after_call(seq))
      images.push_back("/api/image?call=" + std::to_string(image.seq));
    out["images"] = images;
    std::optional<GpuTimes> gpu = gpu_times(out["frame"].get<uint64_t>());
    out["gpu_ns"] = gpu_json(gpu ? &*gpu : nullptr, seq);
    return out;
  }

  // The most expensive GPU work of a frame (frame=F) or of the whole trace.
  json gpu_top(const httplib::Request& req) const {
    std::optional<uint64_t> frame;
    if (req.has_param("frame") && !req.get_param_value("frame").empty())
      frame = param(req, "frame", std::nullopt);
    std::string sort = req.has_param("sort") ? req.get_param_value("sort") : "gpu";
    std::string order = req.has_param("order") ? req.get_param_value("order") : "";
    if (order != "" && order != "asc" && order != "desc")
      fail(400, "order must be asc or desc, not '" + order.substr(0, 40) + "'");
    // Times and counts are biggest first unless asked; names and numbers in order.
    bool descending = order.empty() ? sort == "gpu" || sort == "cpu" : order == "desc";
    uint64_t from = param(req, "from", 0);
    uint64_t count = std::min(param(req, "count", 100), kMaxGpuRows);
    GpuTopPage page = model_.gpu_top(frame, sort, descending, from, count);
    TraceSummary s = model_.summary();
    json rows = json::array();
    for (const GpuWork& w : page.rows) {
      const char* name = function_name(w.function);
      rows.push_back(
          {{"call", w.seq},
           {"frame", w.frame},
           {"name", name != nullptr ? std::string(name)
                                    : "<unknown function " + std::to_string(w.function) + ">"},
           {"gpu_ns", w.gpu_ns},
           {"dur_ns", w.dur_ns},
           {"start_ns", w.start_ns},
           {"share", page.gpu_ns != 0
                         ? json(static_cast<double>(w.gpu_ns) / static_cast<double>(page.gpu_ns))
                         : json(nullptr)},
           {"disjoint", w.disjoint}});
    }
    return {{"frame", frame ? json(*frame) : json(nullptr)},
            {"source", s.gpu_calls != 0 ? json(s.gpu_source) : json(nullptr)},
            {"sort", sort},
            {"order", descending ? "desc" : "asc"},
            {"total", page.total},
            {"gpu_ns", s.gpu_calls != 0 ? json(page.gpu_ns) : json(nullptr)},
            {"rows", rows}};
  }

  json gpu_measure(const httplib::Request&) const { return measure_.status(); }
  json gpu_measure_start(const httplib::Request&) const {
    measure_.start();
    return measure_.status();
  }

  json frame_summary(const httplib::Request& req) const {
    uint64_t number = param(req, "frame", std::nullopt);
    FrameInfo f = model_.frame(number);
    struct Stats {
      uint64_t count = 0, total = 0, max = 0, thread = 0;
    };
    std::map<uint32_t, Stats> by_function;
    model_.for_frame_calls(number, 0, f.calls, [&](const CallRef& ref) {
      Stats& s = by_function[ref.call.function];
      ++s.count;
      s.total += ref.call.duration_ns;
      s.max = std::max(s.max, ref.call.duration_ns);
      s.thread += ref.call.thread_time_ns;
    });
    bool thread_time = model_.has_thread_time();
    json functions = json::array();
    for (const auto& [function, s] : by_function) {
      const char* name = function_name(function);
      functions.push_back(
          {{"name", name != nullptr ? std::string(name) : "function#" + std::to_string(function)},
           {"count", s.count},
           {"total_ns", s.total},
           {"mean_ns", s.total / s.count},
           {"max_ns", s.max},
           {"thread_total_ns", thread_time ? json(s.thread) : json(nullptr)}});
    }
    std::sort(functions.begin(), functions.end(), [](const json& a, const json& b) {
      return a["total_ns"].get<uint64_t>() > b["total_ns"].get<uint64_t>();
    });
    return {{"frame", number},
            {"calls", f.calls},
            {"wall_ns", f.end_ns - f.start_ns},
            {"call_ns", f.call_ns},
            {"thread_ns", thread_time ? json(f.thread_ns) : json(nullptr)},
            {"gpu_ns", model_.summary().gpu_calls != 0 ? json(f.gpu_ns) : json(nullptr)},
            {"draws", f.draws},
            {"errors", f.errors},
            {"image",
             f.image >= 0 ? json("/api/image?frame=" + std::to_string(number)) : json(nullptr)},
            {"functions", functions}};
  }

  std::string image_png(const ImageInfo& image) const {
    uint64_t need = uint64_t{image.width} * image.height * 4, total = 0;
    std::string pixels = model_.blob(image.blob, 0, need, &total);
    if (image.width == 0 || image.height == 0 || total != need)
      fail(404, "the captured image's data does not match its size (" +
                    std::to_string(image.width) + "x" + std::to_string(image.height) + ")");
    return consumers::encode_png(image.width, image.height,
                                 reinterpret_cast<const uint8_t*>(pixels.data()), true);
  }

  std::string image(const httplib::Request& req) const {
    std::optional<ImageInfo> image;
    if (req.has_param("frame")) {
      uint64_t frame = param(req, "frame", std::nullopt);
      model_.frame(frame);  // 404 for an unknown frame
      image = model_.image_of_frame(frame);
      if (!image) fail(404, "frame " + std::to_string(frame) + " has no captured image");
    } else {
      uint64_t seq = param(req, "call", std::nullopt);
      image = model_.image_after_call(seq);
      if (!image) fail(404, "no image was captured after call " + std::to_string(seq));
    }
    return image_png(*image);
  }

  std::string call_image(const httplib::Request& req) const {
    uint64_t seq = param(req, "call", std::nullopt);
    uint64_t layer = param(req, "layer", 0);
    std::string png;
    model_.find_call(seq, [&](const CallRef& ref) {
      Upload u = upload_of(ref.call);
      if (!u.is_upload) fail(404, "call " + std::to_string(seq) + " uploads no texture image");
      if (!u.why_not.empty()) fail(404, u.why_not);
      if (layer >= u.depth)
        fail(404, "layer " + std::to_string(layer) + " is past the upload's depth " +
                      std::to_string(u.depth));
      std::string bytes = upload_bytes(arg(ref.call, "pixels"));
      uint32_t pixel = decodable_pixel_size(u.format, u.type);
      uint32_t rows = u.height * u.depth;
      size_t stride = infer_row_stride(u.width, rows, pixel, bytes.size());
      if (stride == 0)
        fail(404, "the upload's " + std::to_string(bytes.size()) +
                      " bytes fit no unpack alignment (row length or skip state was set)");
      std::vector<uint8_t> rgba;
      std::string why;
      std::string_view slice(bytes);
      slice.remove_prefix(static_cast<size_t>(stride * u.height * layer));
      if (!decode_pixels(u.format, u.type, u.width, u.height, stride, slice, &rgba, &why))
        fail(404, why);
      // Row 0 of a texture is its bottom, as a framebuffer's is.
      png = consumers::encode_png(u.width, u.height, rgba.data(), true);
    });
    return png;
  }

  std::string blob(const httplib::Request& req) const {
    if (!req.has_param("id")) fail(400, "missing parameter 'id'");
    uint64_t id = param(req, "id", std::nullopt, 16);
    uint64_t offset = param(req, "offset", 0);
    uint64_t size = std::min(param(req, "size", kMaxBytes), kMaxBytes);
    uint64_t total = 0;
    return model_.blob(id, offset, size, &total);
  }

  // One element of a vertex attribute as the table shows it: its components.
  static json element_values(const uint8_t* p, const vertex_format::DataType& type, int size,
                             bool normalized) {
    vertex_format::Component c[4];
    int n = vertex_format::read_element(p, type, size, normalized, c);
    json values = json::array();
    for (int i = 0; i < n; ++i)
      values.push_back(c[i].is_integer ? json(c[i].integer) : json(c[i].real));
    return values;
  }

  // What a draw reads, from its arguments: vertices first..first+count, or
  // count indices (client memory, or at an offset in the element buffer).
  struct DrawInputs {
    uint64_t first = 0, count = 0;
    int64_t base_vertex = 0;
    bool indexed = false;
    uint32_t index_type = 0;
    std::string indices;        // client memory, when recorded
    uint64_t index_offset = 0;  // in the element buffer otherwise
    bool client_indices = false;
  };
  DrawInputs draw_inputs(const format::Call& call) const {
    DrawInputs d;
    d.first = integer(arg(call, "first")).value_or(0);
    d.count = integer(arg(call, "count")).value_or(0);
    d.base_vertex = integer(arg(call, "basevertex")).value_or(0);
    const format::Value* indices = arg(call, "indices");
    if (indices == nullptr) return d;
    d.indexed = true;
    d.index_type = static_cast<uint32_t>(integer(arg(call, "type")).value_or(GL_UNSIGNED_INT));
    if (indices->kind == format::ValueKind::kData || indices->kind == format::ValueKind::kBlob) {
      d.client_indices = true;
      d.indices = upload_bytes(indices);
    } else if (indices->kind == format::ValueKind::kPointer) {
      d.index_offset = indices->pointer;
    }
    return d;
  }

  // A draw from buffer objects: the state worker decodes the rows asked for
  // from the replay's buffers (its "vertices" op). The vertex each row reads
  // is told it when the trace holds it (a draw's first, or indices recorded
  // from client memory); indices in an element buffer it reads itself.
  json vertices_from_worker(uint64_t seq, const DrawInputs& draw, uint64_t first,
                            uint64_t count) const {
    uint64_t end = std::min(draw.count, first + count);
    json request = {{"op", "vertices"}, {"base_vertex", draw.base_vertex}};
    if (first >= end) {
      request["vertices"] = json::array();
    } else if (!draw.indexed) {
      json vertices = json::array();
      for (uint64_t row = first; row < end; ++row) vertices.push_back(draw.first + row);
      request["vertices"] = std::move(vertices);
    } else if (draw.client_indices) {
      auto unit = static_cast<uint64_t>(vertex_format::index_bytes(draw.index_type));
      if (unit == 0 || end > draw.indices.size() / unit)
        fail(404, "the draw's recorded indices are fewer than its count");
      json vertices = json::array();
      for (uint64_t row = first; row < end; ++row) {
        uint32_t v = 0;
        memcpy(&v, draw.indices.data() + row * unit, unit);
        vertices.push_back(v);
      }
      request["vertices"] = std::move(vertices);
    } else {
      request.update({{"index_type", draw.index_type},
                      {"index_offset", draw.index_offset},
                      {"first", first},
                      {"count", end - first}});
    }
    json go;
    json reply = checked(worker_.request_at(seq, request, &go));
    return {{"attributes", reply["attributes"]},
            {"rows", reply["rows"]},
            {"total", draw.count},
            {"source", "worker"}};
  }

  // A draw's client-side vertex arrays as a table; the attribute formats come
  // from the glVertexAttrib*Pointer calls before it.
  json draw_vertices(const httplib::Request& req) const {
    uint64_t seq = param(req, "call", std::nullopt);
    uint64_t first = param(req, "first", 0);
    uint64_t count = std::min(param(req, "count", 100), kMaxCalls);
    struct Array {
      uint32_t index;
      uint32_t stride;
      std::string data;
    };
    std::vector<Array> arrays;
    uint64_t draw_frame = 0, draw_pos = 0;
    DrawInputs inputs;
    model_.find_call(seq, [&](const CallRef& ref) {
      if (!is_draw(ref.call)) fail(404, "call " + std::to_string(seq) + " is no draw");
      draw_frame = ref.frame;
      draw_pos = ref.pos;
      inputs = draw_inputs(ref.call);
      for (const format::ClientArray& a : ref.call.client_arrays) {
        std::string data(a.data);
        if (a.blob != 0) {
          uint64_t total = 0;
          data = model_.blob(a.blob, 0, uint64_t{64} << 20, &total);
        }
        arrays.push_back({a.index, a.stride, std::move(data)});
      }
    });
    if (arrays.empty()) return vertices_from_worker(seq, inputs, first, count);
    struct Format {
      uint32_t size = 0, type = 0;
      bool normalized = false, found = false;
    };
    std::map<uint32_t, Format> formats;
    for (const Array& a : arrays) formats[a.index];
    model_.for_frame_calls(draw_frame, 0, draw_pos, [&](const CallRef& ref) {
      if (!api::has_role(ref.call.function, api::kRoleAttribPointer)) return;
      auto index = integer(arg(ref.call, "index"));
      if (!index || formats.count(static_cast<uint32_t>(*index)) == 0) return;
      Format& f = formats[static_cast<uint32_t>(*index)];
      f.size = static_cast<uint32_t>(integer(arg(ref.call, "size")).value_or(4));
      f.type = static_cast<uint32_t>(integer(arg(ref.call, "type")).value_or(0x1406));
      f.normalized = integer(arg(ref.call, "normalized")).value_or(0) != 0;
      f.found = true;
    });
    json attributes = json::array();
    uint64_t total = UINT64_MAX;
    for (const Array& a : arrays) {
      const Format& f = formats[a.index];
      if (!f.found || f.size == 0 || f.size > 4)
        fail(404, "the format of attribute " + std::to_string(a.index) +
                      " was set before this frame: ask the state worker");
      const char* type = api::enum_name(f.type);
      attributes.push_back({{"index", a.index},
                            {"name", "attribute " + std::to_string(a.index)},
                            {"size", f.size},
                            {"type", type != nullptr ? type : std::to_string(f.type)}});
      if (vertex_format::data_type(f.type) == nullptr)
        fail(404, "attribute " + std::to_string(a.index) + " has type " +
                      (type != nullptr ? std::string(type) : std::to_string(f.type)) +
                      ", which the viewer cannot decode");
      auto element = static_cast<uint64_t>(vertex_format::element_bytes(f.size, f.type));
      uint64_t stride = a.stride != 0 ? a.stride : element;
      total = std::min(total, a.data.size() < element ? 0 : (a.data.size() - element) / stride + 1);
    }
    json rows = json::array();
    for (uint64_t row = first; row < total && row < first + count; ++row) {
      json values = json::array();
      for (const Array& a : arrays) {
        const Format& f = formats[a.index];
        auto element = static_cast<uint64_t>(vertex_format::element_bytes(f.size, f.type));
        uint64_t stride = a.stride != 0 ? a.stride : element;
        values.push_back(element_values(
            reinterpret_cast<const uint8_t*>(a.data.data()) + row * stride,
            *vertex_format::data_type(f.type), static_cast<int>(f.size), f.normalized));
      }
      rows.push_back(values);
    }
    return {{"attributes", attributes}, {"rows", rows}, {"total", total}};
  }

  json minimap(const httplib::Request& req) const {
    uint64_t number = param(req, "frame", std::nullopt);
    uint64_t buckets = std::clamp<uint64_t>(param(req, "buckets", 1000), 1, kMaxBuckets);
    FrameInfo f = model_.frame(number);
    uint64_t n = std::min(buckets, f.calls);
    std::vector<uint64_t> max(n, 0);
    model_.for_frame_calls(number, 0, f.calls, [&](const CallRef& ref) {
      uint64_t b = ref.pos * n / f.calls;
      max[b] = std::max(max[b], ref.call.duration_ns);
    });
    return {{"buckets", max}, {"calls", f.calls}};
  }

  json timeline(const httplib::Request& req) const {
    uint64_t start = param(req, "start_ns", 0);
    uint64_t end = param(req, "end_ns", UINT64_MAX);
    uint64_t max = std::clamp<uint64_t>(param(req, "max", 10000), 1, kMaxSpans);
    if (end <= start) fail(400, "end_ns must be after start_ns");
    // First how many calls there are; more than max: merged per time bin.
    uint64_t in_range = 0;
    bool truncated = false;
    model_.for_time_range(start, end, kTimelineCalls, &truncated,
                          [&](const CallRef&) { ++in_range; });
    bool merge = in_range > max;
    uint64_t bin_ns = merge ? std::max<uint64_t>(1, (end - start) / max) : 1;
    struct Span {
      uint64_t seq, start, end, calls;
      std::string name;
      bool draw;  // one of its calls draws
    };
    std::map<uint32_t, std::vector<Span>> threads;
    model_.for_time_range(start, end, kTimelineCalls, &truncated, [&](const CallRef& ref) {
      const format::Call& c = ref.call;
      std::vector<Span>& spans = threads[c.thread];
      uint64_t call_end = c.start_ns + c.duration_ns;
      if (merge && !spans.empty() &&
          (std::max(c.start_ns, start) - start) / bin_ns ==
              (std::max(spans.back().start, start) - start) / bin_ns) {
        Span& s = spans.back();
        s.end = std::max(s.end, call_end);
        ++s.calls;
        s.draw = s.draw || is_draw(c);
        return;
      }
      spans.push_back({c.seq, c.start_ns, call_end, 1, name_of(c), is_draw(c)});
    });
    json out_threads = json::array();
    for (auto& [thread, spans] : threads) {
      json list = json::array();
      for (const Span& s : spans) {
        json span = {{"call", s.seq},
                     {"name", s.calls > 1 ? std::to_string(s.calls) + " calls" : s.name},
                     {"start_ns", s.start},
                     {"dur_ns", s.end - s.start},
                     {"draw", s.draw}};
        if (s.calls > 1) span["calls"] = s.calls;
        list.push_back(span);
      }
      out_threads.push_back({{"thread", thread}, {"spans", list}});
    }
    json frames = json::array();
    uint64_t total = 0;
    for (uint64_t from = 0;; from += kMaxFrames) {
      std::vector<FrameInfo> page = model_.frames(from, kMaxFrames, &total);
      for (const FrameInfo& f : page)
        if (f.start_ns < end && f.end_ns >= start && frames.size() < kMaxSpans)
          frames.push_back({{"number", f.number}, {"start_ns", f.start_ns}, {"end_ns", f.end_ns}});
      if (page.empty() || from + kMaxFrames >= total) break;
    }
    return {{"threads", out_threads},
            {"frames", frames},
            {"gpu", gpu_lane(start, end, max)},
            {"truncated", truncated}};
  }

  // The timeline's GPU lane: each GPU-work call's GPU span, placed by the
  // trace's GPU clock pairs where it has them, else at its call's start;
  // merged per time bin past max spans. Null when the trace has no GPU time.
  json gpu_lane(uint64_t start, uint64_t end, uint64_t max) const {
    TraceSummary s = model_.summary();
    if (s.gpu_calls == 0) return nullptr;
    bool truncated = false;
    std::vector<GpuSpan> spans = model_.gpu_spans(start, end, kTimelineCalls, &truncated);
    std::sort(spans.begin(), spans.end(),
              [](const GpuSpan& a, const GpuSpan& b) { return a.start_ns < b.start_ns; });
    bool merge = spans.size() > max;
    uint64_t bin_ns = merge ? std::max<uint64_t>(1, (end - start) / max) : 1;
    json list = json::array();
    uint64_t clocked = 0, calls = 0, last_bin = UINT64_MAX, merged_end = 0;
    for (const GpuSpan& g : spans) {
      clocked += g.on_gpu_clock ? 1 : 0;
      uint64_t bin = (std::max(g.start_ns, start) - start) / bin_ns;
      if (merge && bin == last_bin && !list.empty()) {
        json& m = list.back();
        merged_end = std::max(merged_end, g.start_ns + g.dur_ns);
        m["dur_ns"] = merged_end - m["start_ns"].get<uint64_t>();
        m["calls"] = ++calls;
        m["name"] = std::to_string(calls) + " calls";
        continue;
      }
      const char* name = function_name(g.function);
      list.push_back({{"call", g.seq},
                      {"name", name != nullptr ? name : "?"},
                      {"start_ns", g.start_ns},
                      {"dur_ns", g.dur_ns}});
      last_bin = bin;
      calls = 1;
      merged_end = g.start_ns + g.dur_ns;
    }
    // "gpu clock": every span by the GPU's own clock; "call start": laid at
    // its call's start (no clock pairs: a replay's measure, an old trace).
    const char* placed = spans.empty()             ? nullptr
                         : clocked == spans.size() ? "gpu clock"
                         : clocked == 0            ? "call start"
                                                   : "mixed";
    return {{"source", s.gpu_source},
            {"placed", placed != nullptr ? json(placed) : json(nullptr)},
            {"spans", list},
            {"truncated", truncated}};
  }

  std::string export_text(const httplib::Request& req) const {
    uint64_t frame = param(req, "frame", std::nullopt);
    uint64_t from = param(req, "from", 0);
    uint64_t count = std::min(param(req, "count", kMaxExport), kMaxExport);
    TraceModel::CallFilter filter = filter_of(req, "filter");
    char* buffer = nullptr;
    size_t size = 0;
    FILE* out = open_memstream(&buffer, &size);
    if (out == nullptr) fail(500, "out of memory");
    {
      consumers::Dumper dumper(out, consumers::DumpFilter{});
      uint64_t total = 0;
      selected_calls(frame, from, count, filter, &total, [&](const CallRef& ref) {
        for (const auto& [id, bytes] : blob_sizes(ref.call)) dumper.note_blob(id, bytes);
        dumper.on_call(ref.call);
      });
    }
    fclose(out);
    std::string text(buffer, size);
    free(buffer);
    return text;
  }

  // --- state, through the worker ---------------------------------------------

  static json checked(json reply) {
    if (reply.value("ok", false) != true) {
      std::string error = reply.contains("error") && reply["error"].is_string()
                              ? reply["error"].get<std::string>()
                              : "the state worker failed without saying why";
      fail(404, error);
    }
    reply.erase("id");
    reply.erase("ok");
    return reply;
  }

  // The bytes of a worker reply's binary frame (a PNG, a buffer's bytes).
  static std::string frame_bytes(const json& reply) {
    if (!reply.contains("bytes") || !reply["bytes"].is_binary())
      fail(503, "the state worker's reply carries no bytes");
    const json::binary_t& bytes = reply["bytes"].get_binary();
    return std::string(bytes.begin(), bytes.end());
  }

  json state(const httplib::Request& req) const {
    uint64_t seq = param(req, "call", std::nullopt);
    json go;
    json reply = checked(worker_.request_at(seq, {{"op", "state"}}, &go));
    // The call asked for, and the one whose state it is: the last call at or
    // before it that the trace holds (they differ at a gap).
    reply["state_call"] = reply.value("call", json(seq));
    reply["call"] = seq;
    reply["warnings"] = go.value("warnings", json::array());
    reply["ms"] = go.value("ms", json(0));
    reply["restarted"] = go.value("restarted", json(false));
    // Which worker answered, from which call (null: the trace's start), and
    // whether that was a checkpoint at a frame start.
    reply["worker"] = go.value("worker", json(0));
    reply["from"] = go.value("from", json());
    reply["replayed"] = go.value("replayed", json(0));
    reply["checkpoint"] = go.value("checkpoint", json(false));
    return reply;
  }

  json state_workers(const httplib::Request&) const { return {{"workers", worker_.workers()}}; }

  std::string state_png(const httplib::Request& req, json op) const {
    uint64_t seq = param(req, "call", std::nullopt);
    json go;
    return frame_bytes(checked(worker_.request_at(seq, std::move(op), &go)));
  }

  std::string state_framebuffer(const httplib::Request& req) const {
    return state_png(req, {{"op", "framebuffer"}});
  }

  std::string state_texture(const httplib::Request& req) const {
    if (!req.has_param("target") || req.get_param_value("target").empty())
      fail(400, "missing parameter 'target'");
    return state_png(req, {{"op", "texture"},
                           {"name", param(req, "name", std::nullopt)},
                           {"target", req.get_param_value("target")},
                           {"level", param(req, "level", 0)},
                           {"layer", param(req, "layer", 0)},
                           {"face", param(req, "face", 0)}});
  }

  std::string state_buffer(const httplib::Request& req) const {
    uint64_t seq = param(req, "call", std::nullopt);
    json go;
    json reply =
        checked(worker_.request_at(seq,
                                   {{"op", "buffer"},
                                    {"name", param(req, "name", std::nullopt)},
                                    {"offset", param(req, "offset", 0)},
                                    {"size", std::min(param(req, "size", kMaxBytes), kMaxBytes)}},
                                   &go));
    return frame_bytes(reply);
  }

  json state_shader(const httplib::Request& req) const {
    uint64_t seq = param(req, "call", std::nullopt);
    json go;
    return checked(worker_.request_at(
        seq, {{"op", "shader"}, {"name", param(req, "name", std::nullopt)}}, &go));
  }

 private:
  TraceModel& model_;
  StateWorkerPool& worker_;
  GpuMeasure& measure_;
};

// The replay command of the GPU measure: the state worker's gltrace and
// driver, without its own options.
std::vector<std::string> replay_command(const std::vector<std::string>& worker_command) {
  std::vector<std::string> out;
  if (worker_command.empty()) return out;
  out = {worker_command[0], "replay"};
  for (size_t i = 1; i + 1 < worker_command.size(); ++i)
    if (worker_command[i] == "--driver") out.insert(out.end(), {"--driver", worker_command[i + 1]});
  return out;
}

bool token_matches(const std::string& given, const std::string& token) {
  if (given.size() != token.size()) return false;
  unsigned char diff = 0;  // the same time whatever the first wrong character
  for (size_t i = 0; i < token.size(); ++i) diff |= static_cast<unsigned char>(given[i] ^ token[i]);
  return diff == 0;
}

void send_error(httplib::Response& res, int status, const std::string& message) {
  res.status = status;
  res.set_content(json_text({{"error", message}}), "application/json");
}

// Runs xdg-open in its own session, its output away from ours.
void open_browser(const std::string& url) {
  pid_t pid = fork();
  if (pid != 0) {
    if (pid > 0) {
      // Reaped on a thread: xdg-open may wait for the browser.
      std::thread([pid] { waitpid(pid, nullptr, 0); }).detach();
    }
    return;
  }
  setsid();
  int null = open("/dev/null", O_RDWR);
  if (null >= 0) dup2(null, 0), dup2(null, 1), dup2(null, 2);
  close_range(3, ~0u, 0);
  execlp("xdg-open", "xdg-open", url.c_str(), nullptr);
  _exit(127);
}

}  // namespace

std::string random_token() {
  uint8_t bytes[16];
  size_t got = 0;
  while (got < sizeof bytes) {
    ssize_t n = getrandom(bytes + got, sizeof bytes - got, 0);
    if (n > 0) got += static_cast<size_t>(n);
  }
  std::string token;
  char hex[3];
  for (uint8_t b : bytes) snprintf(hex, sizeof hex, "%02x", b), token += hex;
  return token;
}

sigset_t block_stop_signals() {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  return signals;
}

int run_view(const ViewOptions& options, FILE* out) {
  // SIGINT/SIGTERM end the server from a thread of their own (stop() is
  // not for signal handlers): blocked before any thread starts (the model's
  // indexer is one).
  const sigset_t signals = block_stop_signals();
  TraceModel model;
  std::string error;
  if (options.live != nullptr) {
    model.open_live(options.trace);
  } else if (!model.open(options.trace, &error)) {
    fprintf(stderr, "gltrace view: %s\n", error.c_str());
    return 1;
  }
  StateWorkerPool worker(options.worker_command, options.trace, options.state_workers,
                         [&model](uint64_t call) { return frame_start_of(model, call); });
  GpuMeasure measure(replay_command(options.worker_command), options.trace, model);
  Handlers handlers(model, worker, measure);
  const std::string token = random_token();

  httplib::Server server;
  // Requests carry no bodies: anything past a few KiB is refused.
  server.set_payload_max_length(4096);
  // Headers and body go out in separate writes: without this, a client's
  // delayed ACK adds 40 ms to every keep-alive answer.
  server.set_tcp_nodelay(true);
  // An idle browser connection holds a server thread, and Ctrl-C waits for it.
  server.set_keep_alive_timeout(2);
  // httplib's default adds SO_REUSEPORT: a second viewer (or any process of
  // this user) could then listen on the same port and take half the
  // connections. SO_REUSEADDR alone lets only a closed socket's port be reused.
  server.set_socket_options([](socket_t sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  });
  server.set_pre_routing_handler([&](const httplib::Request& req, httplib::Response& res) {
    if (!req.path.starts_with("/api/")) return httplib::Server::HandlerResponse::Unhandled;
    std::string given = req.has_param("token") ? req.get_param_value("token")
                                               : req.get_header_value("X-Gltrace-Token");
    if (!token_matches(given, token)) {
      send_error(res, 403, "missing or wrong token (use the URL gltrace view printed)");
      return httplib::Server::HandlerResponse::Handled;
    }
    return httplib::Server::HandlerResponse::Unhandled;
  });
  server.set_error_handler([](const httplib::Request& req, httplib::Response& res) {
    if (res.body.empty())
      send_error(res, res.status,
                 res.status == 404 ? "no such page: " + req.path.substr(0, 200) : "request failed");
  });

  auto guarded = [](auto body) {
    return [body](const httplib::Request& req, httplib::Response& res) {
      try {
        body(req, res);
      } catch (const QueryError& e) {
        send_error(res, e.status, e.message);
      } catch (const std::exception& e) {
        send_error(res, 500, e.what());
      }
    };
  };
  auto json_route = [&](const char* path, json (Handlers::*method)(const httplib::Request&) const) {
    server.Get(path,
               guarded([&handlers, method](const httplib::Request& req, httplib::Response& res) {
                 res.set_content(json_text((handlers.*method)(req)), "application/json");
               }));
  };
  auto bytes_route = [&](const char* path, const char* type,
                         std::string (Handlers::*method)(const httplib::Request&) const) {
    server.Get(path, guarded([&handlers, method, type](const httplib::Request& req,
                                                       httplib::Response& res) {
                 res.set_content((handlers.*method)(req), type);
               }));
  };
  server.Get("/api/trace", guarded([&](const httplib::Request&, httplib::Response& res) {
               res.set_content(json_text(handlers.trace()), "application/json");
             }));
  json_route("/api/frames", &Handlers::frames);
  json_route("/api/calls", &Handlers::calls);
  json_route("/api/find", &Handlers::find);
  json_route("/api/call", &Handlers::call);
  json_route("/api/frame/summary", &Handlers::frame_summary);
  bytes_route("/api/image", "image/png", &Handlers::image);
  bytes_route("/api/call/image", "image/png", &Handlers::call_image);
  bytes_route("/api/blob", "application/octet-stream", &Handlers::blob);
  json_route("/api/draw/vertices", &Handlers::draw_vertices);
  json_route("/api/minimap", &Handlers::minimap);
  json_route("/api/timeline", &Handlers::timeline);
  json_route("/api/gpu/top", &Handlers::gpu_top);
  json_route("/api/gpu/measure", &Handlers::gpu_measure);
  server.Post("/api/gpu/measure",
              guarded([&handlers](const httplib::Request& req, httplib::Response& res) {
                res.set_content(json_text(handlers.gpu_measure_start(req)), "application/json");
              }));
  json_route("/api/state", &Handlers::state);
  bytes_route("/api/state/framebuffer", "image/png", &Handlers::state_framebuffer);
  bytes_route("/api/state/texture", "image/png", &Handlers::state_texture);
  bytes_route("/api/state/buffer", "application/octet-stream", &Handlers::state_buffer);
  json_route("/api/state/shader", &Handlers::state_shader);
  json_route("/api/state/workers", &Handlers::state_workers);
  bytes_route("/api/export", "text/plain; charset=utf-8", &Handlers::export_text);

  // The front end: fixed paths, never a file name from the request.
  for (const Asset* asset = kAssets; asset->path != nullptr; ++asset) {
    auto serve = [asset](const httplib::Request&, httplib::Response& res) {
      res.set_content(reinterpret_cast<const char*>(asset->data), asset->size, asset->content_type);
      res.set_header("Cache-Control", "no-cache");
    };
    // httplib takes route patterns as regular expressions.
    std::string pattern;
    for (const char* c = asset->path; *c != '\0'; ++c) {
      if (strchr(".+*?()[]{}|^$\\", *c) != nullptr) pattern += '\\';
      pattern += *c;
    }
    server.Get(pattern, serve);
    if (strcmp(asset->path, "/assets/index.html") == 0) {
      server.Get("/", serve);
      server.Get("/index\\.html", serve);
    }
  }

  int port = options.port;
  if (port == 0) {
    port = server.bind_to_any_port("127.0.0.1");
  } else if (!server.bind_to_port("127.0.0.1", port)) {
    port = -1;
  }
  if (port <= 0) {
    fprintf(stderr, "gltrace view: cannot listen on 127.0.0.1:%d: %s\n", options.port,
            strerror(errno));
    if (options.live != nullptr) {  // started already: stopped at once, its trace finished
      std::atomic<bool> stop{true};
      options.live->stream(stop, {});
    }
    return 1;
  }
  std::string url =
      "http://127.0.0.1:" + std::to_string(port) + "/?token=" + token + options.open_at;
  fprintf(out, "gltrace view: %s\n", url.c_str());
  fflush(out);

  // A dead worker's pipe must not end us.
  signal(SIGPIPE, SIG_IGN);

  // The live capture, on a thread of its own. A signal while it runs stops
  // it, and the server once the trace is finished; after it ended by itself,
  // a signal ends the server.
  std::mutex live_mutex;
  bool capture_running = options.live != nullptr;
  std::atomic<bool> stop_capture{false};
  int capture_status = 0;
  std::thread capture;
  if (options.live != nullptr) {
    capture = std::thread([&] {
      int status = options.live->stream(stop_capture, [&model] { model.notify_written(); });
      model.end_of_stream();
      std::lock_guard<std::mutex> lock(live_mutex);
      capture_running = false;
      capture_status = status;
      if (stop_capture) {
        server.stop();
      } else {
        fprintf(stderr, "gltrace view: the capture ended; still serving %s (Ctrl-C ends)\n",
                options.trace.c_str());
      }
    });
  }

  std::atomic<bool> done{false};
  std::thread stopper([&] {
    const timespec tick = {0, 200 * 1000 * 1000};
    while (!done) {
      if (sigtimedwait(&signals, nullptr, &tick) <= 0) continue;
      std::lock_guard<std::mutex> lock(live_mutex);
      if (capture_running) {
        if (!stop_capture)
          fprintf(stderr, "gltrace view: stopping the capture; the viewer ends with it\n");
        stop_capture = true;
        continue;
      }
      server.stop();
      return;
    }
  });

  const char* display = getenv("DISPLAY");
  const char* wayland = getenv("WAYLAND_DISPLAY");
  if (options.open_browser &&
      ((display != nullptr && display[0] != '\0') || (wayland != nullptr && wayland[0] != '\0')))
    open_browser(url);

  bool ok = server.listen_after_bind();
  int listen_errno = errno;
  done = true;
  stopper.join();
  if (capture.joinable()) {
    stop_capture = true;  // the server failed: the capture ends with it
    capture.join();
  }
  if (!ok) fprintf(stderr, "gltrace view: the server stopped: %s\n", strerror(listen_errno));
  return ok ? capture_status : 1;
}

}  // namespace gltrace::view
