#include "glreplay/outcomes.h"

#include <sys/stat.h>

#include <cerrno>
#include <cinttypes>
#include <cstring>
#include <nlohmann/json.hpp>
#include <optional>

#include "consumers/png.h"
#include "glstate/gl_reader.h"
#include "gltrace/api/functions.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace gltrace::glreplay {

namespace {

using format::ValueKind;

// Values longer than this are written as their count and hash.
constexpr size_t kLongText = 120;

std::string shorten(std::string text, size_t count, const char* unit) {
  if (text.size() <= kLongText) return text;
  char hash[64];
  snprintf(hash, sizeof hash, " %s, xxh3 %016" PRIx64, unit,
           static_cast<uint64_t>(XXH3_64bits(text.data(), text.size())));
  return std::to_string(count) + hash;
}

std::string number_text(double value) {
  char text[32];
  snprintf(text, sizeof text, "%.9g", value);
  return text;
}

// `group`: the registry group of an enum result ("" for none).
std::string result_text(uint64_t value, ResultForm form, const char* group) {
  switch (form) {
    case ResultForm::kEnum:
      return glstate::enum_text(static_cast<uint32_t>(value), *group != 0 ? group : nullptr);
    case ResultForm::kLocation:
      return static_cast<int32_t>(value) < 0 ? "-1 (none)" : "a location";
    case ResultForm::kIndex:
      return static_cast<uint32_t>(value) == 0xFFFFFFFFu ? "GL_INVALID_INDEX" : "an index";
    case ResultForm::kNumber:
      break;
  }
  return std::to_string(static_cast<int64_t>(value));
}

// Text outputs (GLchar: one signed byte) to their NUL.
bool is_text(const Args::Output& o) { return o.element_size == 1 && o.kind == Args::Kind::kSint; }

std::string bytes_text(const void* data, size_t size) {
  char text[64];
  snprintf(text, sizeof text, "%zu bytes, xxh3 %016" PRIx64, size,
           static_cast<uint64_t>(XXH3_64bits(data, size)));
  return text;
}

// What the driver wrote, as text.
std::string replayed_text(const Args::Output& o) {
  const auto* p = static_cast<const uint8_t*>(o.data);
  if (is_text(o)) {
    const char* s = reinterpret_cast<const char*>(p);
    return shorten(std::string(s, strnlen(s, o.bytes)), o.bytes, "chars");
  }
  if (o.element_size == 1 && o.kind == Args::Kind::kUint) return bytes_text(p, o.bytes);
  size_t n = o.bytes / o.element_size;
  std::string text;
  for (size_t k = 0; k < n; ++k) {
    const uint8_t* e = p + k * o.element_size;
    if (!text.empty()) text += ',';
    switch (o.kind) {
      case Args::Kind::kFloat: {
        float f;
        memcpy(&f, e, sizeof f);
        text += number_text(f);
        break;
      }
      case Args::Kind::kDouble: {
        double d;
        memcpy(&d, e, sizeof d);
        text += number_text(d);
        break;
      }
      case Args::Kind::kSint: {
        int64_t v = 0;
        if (o.element_size == 2) v = *reinterpret_cast<const int16_t*>(e);
        if (o.element_size == 4) v = *reinterpret_cast<const int32_t*>(e);
        if (o.element_size == 8) memcpy(&v, e, 8);
        text += std::to_string(v);
        break;
      }
      case Args::Kind::kUint: {
        uint64_t v = 0;
        memcpy(&v, e, std::min<size_t>(o.element_size, 8));
        text += std::to_string(v);
        break;
      }
    }
  }
  return shorten(std::move(text), n, "values");
}

// What the trace recorded there, as the same text; empty when it recorded
// no value (a log-mode trace, an output it could not size).
std::string recorded_text(const Args::Output& o, const Value& v) {
  if (v.kind == ValueKind::kData) {
    if (!is_text(o)) return bytes_text(v.data, v.size);
    std::string s(static_cast<const char*>(v.data),
                  strnlen(static_cast<const char*>(v.data), v.size));
    return shorten(std::move(s), v.size, "chars");
  }
  if (v.kind == ValueKind::kText) return shorten(std::string(v.bytes()), v.size + 1, "chars");
  if (v.kind != ValueKind::kArray) return {};
  size_t n = std::min<size_t>(v.size, o.bytes / o.element_size);
  std::string text;
  for (size_t k = 0; k < n; ++k) {
    if (!text.empty()) text += ',';
    if (v.elements == Value::Elements::kFloat)
      text += number_text(v.floats()[k]);
    else if (v.elements == Value::Elements::kSint)
      text += std::to_string(v.sints()[k]);
    else
      text += std::to_string(v.uints()[k]);
  }
  return shorten(std::move(text), n, "values");
}

}  // namespace

OutcomeWriter::~OutcomeWriter() {
  if (file_ != nullptr) fclose(file_);
}

bool OutcomeWriter::open(const std::string& path, std::string* error) {
  file_ = fopen(path.c_str(), "we");
  if (file_ == nullptr) {
    *error = path + ": " + strerror(errno);
    return false;
  }
  path_ = path;
  return true;
}

void OutcomeWriter::write_image(const std::string& name, uint32_t width, uint32_t height,
                                const void* rgba, size_t bytes, nlohmann::json* out,
                                const char* key) {
  if (bytes != size_t{width} * height * 4) return;
  std::string error;
  if (images_dir_.empty()) {
    images_dir_ = path_ + ".images";
    mkdir(images_dir_.c_str(), 0755);
  }
  if (consumers::write_png(images_dir_ + "/" + name, width, height,
                           static_cast<const uint8_t*>(rgba), &error))
    (*out)[key] = images_dir_ + "/" + name;
}

void OutcomeWriter::record(const ReplayCall& call, const Args* args, uint32_t gl_error,
                           const std::string& failure) {
  if (gl_error != 0) {
    uint32_t& pending = pending_error_[call.thread];
    if (pending == 0) pending = gl_error;
  }
  bool answered = args != nullptr && (args->result() || !args->outputs().empty());
  if (file_ == nullptr || (!answered && gl_error == 0 && failure.empty())) return;
  const char* name =
      call.function < api::kFunctionIdLimit ? api::kFunctionInfo[call.function].name : nullptr;
  nlohmann::json line = {{"call", call.seq}, {"function", name != nullptr ? name : "?"}};
  if (!failure.empty()) line["not_replayed"] = failure;
  if (gl_error != 0) line["error"] = glstate::enum_text(gl_error, "ErrorCode");
  // A snapshot's calls were not the app's: their recorded answers are not.
  const bool compare_recorded = !call.snapshot;
  if (args != nullptr && args->result()) {
    auto [value, form] = *args->result();
    const char* group = api::kFunctionInfo[call.function].ret_group;
    line["result"] = result_text(value, form, group);
    if (compare_recorded && call.has_ret)
      line["recorded_result"] = result_text(args->ret_u(), form, group);
  }
  if (args != nullptr) {
    for (const Args::Output& o : args->outputs()) {
      if (o.bytes == 0) continue;
      nlohmann::json out = {{"param", o.param}, {"value", replayed_text(o)}};
      const Value* v = args->value(o.param);
      std::string recorded = compare_recorded && v != nullptr ? recorded_text(o, *v) : "";
      if (!recorded.empty()) out["recorded"] = recorded;
      if (auto size = args->rgba8_pixels()) {
        std::string name = std::to_string(call.seq) + "-" + std::to_string(o.param);
        write_image(name + ".png", size->first, size->second, o.data, o.bytes, &out, "image");
        if (!recorded.empty() && v->kind == ValueKind::kData)
          write_image(name + "-recorded.png", size->first, size->second, v->data, v->size, &out,
                      "recorded_image");
      }
      line["outputs"].push_back(std::move(out));
    }
  }
  write_line(line);
}

void OutcomeWriter::write_line(const nlohmann::json& line) {
  std::string text = line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  text += '\n';
  fwrite(text.data(), 1, text.size(), file_);
  // Each line is out at once: a replay that crashes later keeps them.
  fflush(file_);
}

void OutcomeWriter::record_get_error(const ReplayCall& call) {
  uint32_t& pending = pending_error_[call.thread];
  uint32_t answer = pending;
  pending = 0;
  if (file_ == nullptr) return;
  nlohmann::json line = {{"call", call.seq},
                         {"function", "glGetError"},
                         {"result", glstate::enum_text(answer, "ErrorCode")}};
  if (call.has_ret && !call.snapshot) {
    uint64_t recorded =
        call.ret.kind == ValueKind::kSint ? static_cast<uint64_t>(call.ret.sint) : call.ret.uint;
    line["recorded_result"] = glstate::enum_text(static_cast<uint32_t>(recorded), "ErrorCode");
  }
  write_line(line);
}

bool OutcomeWriter::close(std::string* error) {
  if (file_ == nullptr) return true;
  bool ok = fflush(file_) == 0 && ferror(file_) == 0;
  if (!ok) *error = path_ + ": " + strerror(errno);
  fclose(file_);
  file_ = nullptr;
  return ok;
}

}  // namespace gltrace::glreplay
