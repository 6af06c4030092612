#include "glreplay/state_diff.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <map>
#include <optional>
#include <vector>

#include "consumers/frame_end.h"
#include "format/crc32.h"
#include "format/reader.h"
#include "glreplay/snapshot.h"
#include "gltrace/api/enums.h"
#include "gltrace/api/functions.h"

namespace gltrace::glreplay {
namespace {

using format::Value;
using format::ValueKind;

// A snapshot as text: each section (object) its calls, one line each, data
// as its size and checksum.
class TextSnapshot final : public SnapshotOut {
 public:
  void call(uint32_t function, std::span<const Value> args, const Value* ret) override {
    const api::FunctionInfo* info =
        function < api::kFunctionIdLimit ? &api::kFunctionInfo[function] : nullptr;
    std::string line = info != nullptr && info->name != nullptr ? info->name : "?";
    line += '(';
    for (size_t i = 0; i < args.size(); ++i) {
      if (i != 0) line += ", ";
      const api::ParamInfo* param =
          info != nullptr && i < info->param_count ? &info->params[i] : nullptr;
      line += text_of(args[i], param);
    }
    line += ')';
    if (ret != nullptr) line += " = " + text_of(*ret, nullptr);
    section_lines().push_back(std::move(line));
  }
  uint64_t blob(std::string_view bytes) override {
    blobs_.emplace_back(bytes);
    return blobs_.size();  // ids from 1: blobs_[id - 1]
  }
  void inexact(const std::string& why) override {
    section_lines().push_back("// not exact: " + why);
  }
  void section(const std::string& name) override {
    // The draw surface's handle is a number of its process (see text_of).
    std::string shown = name.starts_with("window 0x") ? "window" : name;
    section_ = "context " + std::to_string(context_) + ": " + shown;
    if (sections_.find(section_) == sections_.end()) order_.push_back(section_);
  }
  void begin_thread(uint32_t /*thread*/, uint32_t context) override { context_ = context; }
  void surface_size(uint32_t width, uint32_t height) override {
    section_lines().push_back("// draw surface " + std::to_string(width) + "x" +
                              std::to_string(height));
  }

  const std::map<std::string, std::vector<std::string>>& sections() const { return sections_; }
  const std::vector<std::string>& order() const { return order_; }

 private:
  std::vector<std::string>& section_lines() {
    if (section_.empty()) section("(start)");
    return sections_[section_];
  }
  std::string bytes_text(std::string_view bytes) const {
    char text[64];
    snprintf(text, sizeof text, "<%zu bytes, crc32 %08x>", bytes.size(),
             format::crc32(bytes.data(), bytes.size()));
    return text;
  }
  std::string text_of(const Value& v, const api::ParamInfo* param) const {
    switch (v.kind) {
      case ValueKind::kUint: {
        if (param != nullptr && param->kind == api::Kind::kEnum)
          if (const char* name = api::enum_name(static_cast<uint32_t>(v.uint), param->group))
            return name;
        return std::to_string(v.uint);
      }
      case ValueKind::kSint:
        return std::to_string(v.sint);
      case ValueKind::kF32:
        return format_float(v.f32);
      case ValueKind::kF64:
        return format_float(v.f64);
      case ValueKind::kPointer: {
        // An EGL handle is a number of its process: named by its class and
        // the order it first appears in, so that two runs compare.
        if (param != nullptr && param->kind == api::Kind::kHandle && v.pointer != 0) {
          std::string cls = param->cls != nullptr && *param->cls != '\0' ? param->cls : "handle";
          auto [it, added] = handles_.try_emplace(v.pointer, 0);
          if (added) it->second = ++handle_count_[cls];
          return cls + " #" + std::to_string(it->second);
        }
        char text[32];
        snprintf(text, sizeof text, "0x%" PRIx64, v.pointer);
        return text;
      }
      case ValueKind::kData:
        return bytes_text(v.bytes());
      case ValueKind::kBlob:
        return v.blob >= 1 && v.blob <= blobs_.size() ? bytes_text(blobs_[v.blob - 1]) : "<blob ?>";
      case ValueKind::kText:
        return "\"" + std::string(v.bytes()) + "\"";
      case ValueKind::kStrings: {
        std::string out = "{";
        for (std::string_view s : v.strings()) out += (out.size() > 1 ? ", " : "") + bytes_text(s);
        return out + "}";
      }
      case ValueKind::kArray: {
        std::string out = "{";
        for (size_t i = 0; i < v.size; ++i) {
          if (i != 0) out += ", ";
          switch (v.elements) {
            case Value::Elements::kSint:
              out += std::to_string(v.sints()[i]);
              break;
            case Value::Elements::kUint:
              out += std::to_string(v.uints()[i]);
              break;
            case Value::Elements::kFloat:
              out += format_float(v.floats()[i]);
              break;
          }
        }
        return out + "}";
      }
      default:
        return "?";
    }
  }
  static std::string format_float(double x) {
    char text[40];
    snprintf(text, sizeof text, "%.9g", x);
    return text;
  }

  uint32_t context_ = 0;
  std::string section_;
  mutable std::map<uint64_t, uint32_t> handles_;          // handle -> its number
  mutable std::map<std::string, uint32_t> handle_count_;  // per class
  std::map<std::string, std::vector<std::string>> sections_;
  std::vector<std::string> order_;
  std::vector<std::string> blobs_;
};

// Where a point is in its trace: the last call before it.
class PointScan final : public format::Consumer {
 public:
  void on_call(const format::Call& call) override {
    if (call.snapshot) last_snapshot_ = std::max(last_snapshot_.value_or(0), call.seq);
    if (consumers::ends_frame(call)) ends_.push_back(call.seq);
  }
  bool wants_values(uint32_t /*function*/) const override { return false; }
  std::optional<uint64_t> last_snapshot_;
  std::vector<uint64_t> ends_;  // each frame's last call, as every reader counts frames
};

bool parse_number(const std::string& text, uint64_t* value) {
  if (text.empty() || text.size() > 19 ||
      !std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return false;
  *value = std::stoull(text);
  return true;
}

// The call after which a point's state is read; nullopt with *error.
std::optional<uint64_t> resolve(const StatePoint& point, std::string* error) {
  uint64_t n = 0;
  if (parse_number(point.at, &n)) return n;
  if (!point.at.starts_with("frame:") || !parse_number(point.at.substr(6), &n)) {
    *error = "'" + point.at + "' is no point: CALL or frame:N";
    return std::nullopt;
  }
  PointScan scan;
  if (!format::read_trace_file(point.trace, scan, error)) return std::nullopt;
  if (n == 0) {
    if (!scan.last_snapshot_) {
      *error = point.trace + " begins with frame 0: there is no state before it";
      return std::nullopt;
    }
    return scan.last_snapshot_;
  }
  std::sort(scan.ends_.begin(), scan.ends_.end());
  if (n > scan.ends_.size()) {
    *error = point.trace + " has " + std::to_string(scan.ends_.size()) + " frames: frame " +
             std::to_string(n) + " is past its end";
    return std::nullopt;
  }
  return scan.ends_[n - 1];
}

}  // namespace

int run_diff_state(const DiffStateOptions& options) {
  const std::string& program = options.program;
  TextSnapshot sides[2];
  uint64_t calls[2] = {0, 0};
  const StatePoint* points[2] = {&options.left, &options.right};
  for (int i = 0; i < 2; ++i) {
    std::string error;
    std::optional<uint64_t> call = resolve(*points[i], &error);
    if (!call || !snapshot_after_call(points[i]->trace, *call, program, options.driver_dir,
                                      sides[i], &error)) {
      fprintf(stderr, "%s: %s\n", program.c_str(), error.c_str());
      return 2;
    }
    calls[i] = *call;
  }
  // Every section of either side, in the left's order then the right's.
  std::vector<std::string> order = sides[0].order();
  for (const std::string& name : sides[1].order())
    if (sides[0].sections().count(name) == 0) order.push_back(name);
  size_t differ = 0;
  for (const std::string& name : order) {
    auto left = sides[0].sections().find(name);
    auto right = sides[1].sections().find(name);
    if (left == sides[0].sections().end() || right == sides[1].sections().end()) {
      printf("%s: only in %s\n", name.c_str(),
             left != sides[0].sections().end() ? "the left" : "the right");
      ++differ;
      continue;
    }
    if (left->second == right->second) continue;
    ++differ;
    printf("%s:\n", name.c_str());
    const std::vector<std::string>& a = left->second;
    const std::vector<std::string>& b = right->second;
    size_t printed = 0;
    for (size_t k = 0; k < std::max(a.size(), b.size()) && printed < options.max_lines; ++k) {
      const std::string* x = k < a.size() ? &a[k] : nullptr;
      const std::string* y = k < b.size() ? &b[k] : nullptr;
      if (x != nullptr && y != nullptr && *x == *y) continue;
      if (x != nullptr) printf("  - %s\n", x->c_str());
      if (y != nullptr) printf("  + %s\n", y->c_str());
      ++printed;
    }
  }
  printf("%s after call %" PRIu64 " of %s and after call %" PRIu64
         " of %s: %zu of %zu objects "
         "and states differ\n",
         differ == 0 ? "same state" : "states differ", calls[0], options.left.trace.c_str(),
         calls[1], options.right.trace.c_str(), differ, order.size());
  return differ == 0 ? 0 : 1;
}

}  // namespace gltrace::glreplay
