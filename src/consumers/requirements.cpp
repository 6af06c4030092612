#include "consumers/requirements.h"

#define EGL_EGL_PROTOTYPES 0
#include <EGL/egl.h>
#include <EGL/eglext.h>
#define GL_GLES_PROTOTYPES 0
#include <GLES3/gl32.h>

#include <algorithm>
#include <cstring>
#include <optional>
#include <string_view>

#include "consumers/trace_events.h"
#include "consumers/value_format.h"
#include "format/reader.h"
#include "gltrace/api/enums.h"
#include "gltrace/api/functions.h"
#include "gltrace/api/profiles.h"
#include "gltrace/api/requirements.h"

namespace gltrace::consumers {

namespace {

const char* function_name(uint32_t id) {
  const char* name = id < api::kFunctionIdLimit ? api::kFunctionInfo[id].name : nullptr;
  return name != nullptr ? name : "?";
}

// A limit parameter, with the index of the argument its rule reads.
struct PreparedLimit {
  api::LimitParam param;
  int target = -1;  // the "target" argument (rules by target)
};

// What the generated tables say of each function, in the form the scan
// reads: its limit parameters, and the extensions that define it.
struct FunctionTables {
  std::vector<std::vector<PreparedLimit>> limits;
  std::vector<std::vector<std::string>> extensions;  // empty: core (or EGL)

  FunctionTables() : limits(api::kFunctionIdLimit), extensions(api::kFunctionIdLimit) {
    for (const api::LimitParam& p : api::kLimitParams) {
      PreparedLimit prepared{p};
      const api::FunctionInfo& info = api::kFunctionInfo[p.function];
      for (uint32_t i = 0; i < info.param_count; ++i)
        if (strcmp(info.params[i].name, "target") == 0) prepared.target = static_cast<int>(i);
      limits[p.function].push_back(prepared);
    }
    for (uint32_t id = 0; id < api::kFunctionIdLimit; ++id) {
      const api::FunctionInfo& info = api::kFunctionInfo[id];
      if (info.name == nullptr || info.api != api::Api::kGles || api::kFunctionEsVersion[id] != 0)
        continue;
      std::string_view origins = api::kFunctionEsExtensions[id];
      while (!origins.empty()) {
        size_t end = origins.find(' ');
        std::string_view name = origins.substr(0, end);
        if (!name.empty()) extensions[id].emplace_back(name);
        origins = end == std::string_view::npos ? std::string_view() : origins.substr(end + 1);
      }
    }
  }
};

const FunctionTables& tables() {
  static const FunctionTables t;
  return t;
}

std::optional<int64_t> integer_arg(const format::Call& call, size_t i) {
  if (i >= call.args.size()) return std::nullopt;
  const format::Value& v = call.args[i];
  if (v.kind == format::ValueKind::kSint) return v.sint;
  if (v.kind == format::ValueKind::kUint) return static_cast<int64_t>(v.uint);
  return std::nullopt;
}

// The (GL_MAX_* pname, value it must reach) a limit parameter asks for.
std::optional<std::pair<uint32_t, int64_t>> limit_need(const PreparedLimit& limit,
                                                       const format::Call& call) {
  std::optional<int64_t> value = integer_arg(call, limit.param.param);
  if (!value) return std::nullopt;
  int64_t target = limit.target >= 0 ? integer_arg(call, limit.target).value_or(0) : 0;
  auto index_of = [&](int64_t first, int64_t count) -> std::optional<int64_t> {
    if (*value < first || *value >= first + count) return std::nullopt;
    return *value - first + 1;
  };
  std::optional<int64_t> need;
  uint32_t pname = limit.param.pname;
  switch (limit.param.rule) {
    case api::LimitRule::kAtMost:
      need = value;
      break;
    case api::LimitRule::kBelow:
      need = index_of(0, INT64_MAX);
      break;
    case api::LimitRule::kTextureSize:
      need = value;
      if (target == GL_TEXTURE_3D)
        pname = GL_MAX_3D_TEXTURE_SIZE;
      else if (target == GL_TEXTURE_CUBE_MAP || target == GL_TEXTURE_CUBE_MAP_ARRAY ||
               (target >= GL_TEXTURE_CUBE_MAP_POSITIVE_X &&
                target <= GL_TEXTURE_CUBE_MAP_NEGATIVE_Z))
        pname = GL_MAX_CUBE_MAP_TEXTURE_SIZE;
      else
        pname = GL_MAX_TEXTURE_SIZE;
      break;
    case api::LimitRule::kTextureDepth:
      need = value;
      pname = target == GL_TEXTURE_3D ? GL_MAX_3D_TEXTURE_SIZE : GL_MAX_ARRAY_TEXTURE_LAYERS;
      break;
    case api::LimitRule::kTextureUnit:
      need = index_of(GL_TEXTURE0, 1 << 16);
      pname = GL_MAX_COMBINED_TEXTURE_IMAGE_UNITS;
      break;
    case api::LimitRule::kColorAttachment:
      need = index_of(GL_COLOR_ATTACHMENT0, 32);
      pname = GL_MAX_COLOR_ATTACHMENTS;
      break;
    case api::LimitRule::kBufferBinding:
      need = index_of(0, INT64_MAX);
      switch (target) {
        case GL_UNIFORM_BUFFER:
          pname = GL_MAX_UNIFORM_BUFFER_BINDINGS;
          break;
        case GL_TRANSFORM_FEEDBACK_BUFFER:
          pname = GL_MAX_TRANSFORM_FEEDBACK_SEPARATE_ATTRIBS;
          break;
        case GL_ATOMIC_COUNTER_BUFFER:
          pname = GL_MAX_ATOMIC_COUNTER_BUFFER_BINDINGS;
          break;
        case GL_SHADER_STORAGE_BUFFER:
          pname = GL_MAX_SHADER_STORAGE_BUFFER_BINDINGS;
          break;
        default:
          return std::nullopt;
      }
      break;
  }
  // Zero or less asks nothing (GL allows 0 samples; a negative size fails).
  if (!need || *need <= 0) return std::nullopt;
  return std::make_pair(pname, *need);
}

// The (name, value) pairs of a recorded EGL attribute list.
std::vector<int64_t> attrib_pairs(const format::Value& v) {
  std::vector<int64_t> out;
  if (v.kind == format::ValueKind::kArray) {
    for (int64_t x : v.sints()) out.push_back(x);
    for (uint64_t x : v.uints()) out.push_back(static_cast<int64_t>(x));
  } else if (v.kind == format::ValueKind::kData) {
    std::string_view bytes = v.bytes();
    for (size_t i = 0; i + sizeof(EGLint) <= bytes.size(); i += sizeof(EGLint)) {
      EGLint x;
      memcpy(&x, bytes.data() + i, sizeof x);
      out.push_back(x);
    }
  }
  return out;
}

// The value of an attribute in (name, value) pairs ending at EGL_NONE.
std::optional<int64_t> attrib(std::span<const int64_t> pairs, int64_t name) {
  for (size_t i = 0; i + 1 < pairs.size() && pairs[i] != EGL_NONE; i += 2)
    if (pairs[i] == name) return pairs[i + 1];
  return std::nullopt;
}

std::string_view trim_left(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  return s;
}

// The next word of `s` (letters, digits, underscores), removed from it.
std::string_view next_word(std::string_view* s) {
  *s = trim_left(*s);
  size_t n = 0;
  while (n < s->size() && (isalnum(static_cast<unsigned char>((*s)[n])) || (*s)[n] == '_')) ++n;
  std::string_view word = s->substr(0, n);
  s->remove_prefix(n);
  return word;
}

}  // namespace

struct RequirementsScan::State {
  static constexpr size_t kMaxShaderExtensions = 1024;
  std::vector<uint64_t> calls;      // by function id
  std::vector<uint64_t> first_seq;  // by function id
  VersionNeed context, shaders;
  struct ShaderExtension {
    uint64_t sources = 0;
    uint64_t first_seq = 0;
  };
  std::map<std::string, ShaderExtension> shader_extensions;
  std::map<uint32_t, LimitNeed> limits;
  std::map<uint32_t, int64_t> bound_api;  // eglBindAPI's, by thread
  uint64_t total = 0;
  const std::atomic<bool>* stop = nullptr;

  State() : calls(api::kFunctionIdLimit), first_seq(api::kFunctionIdLimit) {}

  void need_limit(uint32_t pname, int64_t value, const format::Call& call) {
    auto [it, added] =
        limits.try_emplace(pname, LimitNeed{pname, value, {call.function, call.seq}});
    if (!added && value > it->second.value) it->second = {pname, value, {call.function, call.seq}};
  }

  void shader_source(const format::Call& call) {
    if (call.args.size() < 3) return;
    std::string text;
    for (std::string_view s : call.args[2].strings()) text += s;
    std::string_view rest = text;
    while (!rest.empty()) {
      size_t end = rest.find('\n');
      std::string_view line = trim_left(rest.substr(0, end));
      rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
      if (line.empty() || line.front() != '#') continue;
      line.remove_prefix(1);
      std::string_view directive = next_word(&line);
      if (directive == "version") {
        std::string_view number = next_word(&line);
        std::string_view profile = next_word(&line);
        // GLSL ES 1.00 is ES 2.0's; 300 es and later name their ES version.
        EsVersion version = number == "100" ? 20 : 0;
        if (profile == "es" && number.size() == 3 && number[0] >= '3' && number[0] <= '9' &&
            isdigit(static_cast<unsigned char>(number[1])))
          version = (number[0] - '0') * 10 + (number[1] - '0');
        if (version > shaders.version) shaders = {version, {call.function, call.seq}};
      } else if (directive == "extension") {
        std::string name(next_word(&line));
        line = trim_left(line);
        if (line.empty() || line.front() != ':') continue;
        line.remove_prefix(1);
        std::string_view behavior = next_word(&line);
        // "all" names none; warn and disable ask for nothing.
        if (name == "all" || (behavior != "require" && behavior != "enable")) continue;
        // A hostile trace's shaders could name any number of them.
        if (shader_extensions.size() >= kMaxShaderExtensions && !shader_extensions.count(name))
          continue;
        ShaderExtension& e = shader_extensions[name];
        if (e.sources++ == 0) e.first_seq = call.seq;
      }
    }
  }
};

RequirementsScan::RequirementsScan(const std::atomic<bool>* stop)
    : state_(std::make_unique<State>()) {
  state_->stop = stop;
}
RequirementsScan::~RequirementsScan() = default;

void RequirementsScan::on_call(const format::Call& call) {
  State& s = *state_;
  if (s.stop != nullptr && s.stop->load(std::memory_order_relaxed)) {
    request_stop();
    return;
  }
  ++s.total;
  uint32_t id = call.function;
  if (id >= api::kFunctionIdLimit || call.gl_error != 0) return;
  if (s.calls[id]++ == 0) s.first_seq[id] = call.seq;
  if (id == api::kFn_eglBindAPI) {
    if (std::optional<int64_t> bound = integer_arg(call, 0)) s.bound_api[call.thread] = *bound;
  } else if (id == api::kFn_eglCreateContext) {
    auto bound = s.bound_api.find(call.thread);
    // A desktop GL context through EGL asks no GLES version; nor does one
    // the driver refused (EGL_NO_CONTEXT: the app asks for a lower one).
    bool made = call.ret == nullptr || call.ret->uint != 0;  // a handle: uint or pointer
    if (made && call.args.size() >= 4 &&
        (bound == s.bound_api.end() || bound->second == EGL_OPENGL_ES_API)) {
      std::vector<int64_t> pairs = attrib_pairs(call.args[3]);
      // EGL_CONTEXT_CLIENT_VERSION is EGL_CONTEXT_MAJOR_VERSION; 1 when absent.
      int64_t major = attrib(pairs, EGL_CONTEXT_MAJOR_VERSION).value_or(1);
      int64_t minor = attrib(pairs, EGL_CONTEXT_MINOR_VERSION).value_or(0);
      if (major >= 1 && major <= 9 && minor >= 0 && minor <= 9 &&
          major * 10 + minor > s.context.version)
        s.context = {static_cast<EsVersion>(major * 10 + minor), {id, call.seq}};
    }
  } else if (id == api::kFn_glShaderSource) {
    s.shader_source(call);
  }
  // A surface's or context's config with several samples per pixel.
  if (call.config_attribs != nullptr)
    if (std::optional<int64_t> samples = attrib(*call.config_attribs, EGL_SAMPLES);
        samples && *samples > 1)
      s.need_limit(GL_MAX_SAMPLES, *samples, call);
  for (const PreparedLimit& limit : tables().limits[id])
    if (auto need = limit_need(limit, call)) s.need_limit(need->first, need->second, call);
}

bool RequirementsScan::wants_values(uint32_t function) const {
  return function >= api::kFunctionIdLimit || api::kFunctionInfo[function].api != api::Api::kGles ||
         function == api::kFn_glShaderSource || !tables().limits[function].empty();
}

Requirements RequirementsScan::result() const {
  const State& s = *state_;
  Requirements r;
  r.context = s.context;
  r.shaders = s.shaders;
  r.calls = s.total;
  std::map<std::vector<std::string>, ExtensionNeed> by_names;
  for (uint32_t id = 0; id < api::kFunctionIdLimit; ++id) {
    if (s.calls[id] == 0) continue;
    if (EsVersion v = api::kFunctionEsVersion[id]; v != 0) {
      if (v > r.functions.version) {
        r.functions = {v, {id, s.first_seq[id]}};
        r.newest_functions = 0;
      }
      if (v == r.functions.version) {
        ++r.newest_functions;
        if (s.first_seq[id] < r.functions.source.seq) r.functions.source = {id, s.first_seq[id]};
      }
    }
    const std::vector<std::string>& names = tables().extensions[id];
    if (names.empty()) continue;
    ExtensionNeed& need = by_names[names];
    need.any_of = names;
    need.uses.push_back({id, false, s.calls[id], s.first_seq[id]});
  }
  for (const auto& [name, e] : s.shader_extensions) {
    ExtensionNeed& need = by_names[{name}];
    need.any_of = {name};
    need.uses.push_back({api::kFn_glShaderSource, true, e.sources, e.first_seq});
  }
  // A need that another's names all serve is met with it: its uses go
  // there (GL_EXT_disjoint_timer_query's glGetQueryObjectui64vEXT, and
  // glBeginQueryEXT, which GL_EXT_occlusion_query_boolean defines too).
  for (auto it = by_names.begin(); it != by_names.end();) {
    auto narrower = std::find_if(by_names.begin(), by_names.end(), [&](const auto& other) {
      return other.first.size() < it->first.size() &&
             std::includes(it->first.begin(), it->first.end(), other.first.begin(),
                           other.first.end());
    });
    if (narrower == by_names.end()) {
      ++it;
      continue;
    }
    std::vector<ExtensionNeed::Use>& uses = narrower->second.uses;
    uses.insert(uses.end(), it->second.uses.begin(), it->second.uses.end());
    it = by_names.erase(it);
  }
  for (auto& [names, need] : by_names) r.extensions.push_back(std::move(need));
  for (const auto& [pname, limit] : s.limits) r.limits.push_back(limit);
  std::sort(r.limits.begin(), r.limits.end(), [](const LimitNeed& a, const LimitNeed& b) {
    return limit_name(a.pname) < limit_name(b.pname);
  });
  return r;
}

EsVersion Requirements::version() const {
  return std::max({context.version, shaders.version, functions.version});
}

bool scan_requirements(const std::string& path, Requirements* requirements, std::string* error,
                       const std::atomic<bool>* stop) {
  format::ChunkReader reader;
  if (!reader.open(path)) {
    *error = path + ": " + reader.status().message;
    return false;
  }
  RequirementsScan scan(stop);
  format::ReadStatus status;
  // Decoded on this thread: a scan skips most values (wants_values), and
  // handing its calls to another thread cost more than decoding them.
  if (!format::read_trace_read_ahead(reader, scan, &status)) {
    *error = path + ": " + status.message;
    return false;
  }
  if (scan.stop_requested()) {
    *error = path + ": the scan was stopped";
    return false;
  }
  *requirements = scan.result();
  return true;
}

std::string es_version_text(EsVersion version) {
  return "OpenGL ES " + std::to_string(version / 10) + "." + std::to_string(version % 10);
}

std::vector<uint32_t> limit_pnames() {
  // The rules' (limit_need) and the EGL config's samples, then the table's.
  std::set<uint32_t> pnames = {GL_MAX_TEXTURE_SIZE,
                               GL_MAX_CUBE_MAP_TEXTURE_SIZE,
                               GL_MAX_3D_TEXTURE_SIZE,
                               GL_MAX_ARRAY_TEXTURE_LAYERS,
                               GL_MAX_COMBINED_TEXTURE_IMAGE_UNITS,
                               GL_MAX_COLOR_ATTACHMENTS,
                               GL_MAX_UNIFORM_BUFFER_BINDINGS,
                               GL_MAX_TRANSFORM_FEEDBACK_SEPARATE_ATTRIBS,
                               GL_MAX_ATOMIC_COUNTER_BUFFER_BINDINGS,
                               GL_MAX_SHADER_STORAGE_BUFFER_BINDINGS,
                               GL_MAX_SAMPLES};
  for (const api::LimitParam& p : api::kLimitParams)
    if (p.pname != 0) pnames.insert(p.pname);
  return {pnames.begin(), pnames.end()};
}

std::string limit_name(uint32_t pname) {
  const char* name = api::enum_name(pname, "GetPName");
  if (name != nullptr) return name;
  char hex[16];
  snprintf(hex, sizeof hex, "0x%04X", pname);
  return hex;
}

namespace {

std::string call_text(const NeedSource& source) {
  return std::string(function_name(source.function)) + ", call " + std::to_string(source.seq);
}

std::string any_of_text(const std::vector<std::string>& names) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) out += (i == 0 ? "" : " or ") + names[i];
  return out;
}

std::string uses_text(const ExtensionNeed& need) {
  std::string out;
  for (const ExtensionNeed::Use& use : need.uses) {
    out += out.empty() ? "" : "; ";
    std::string count = std::to_string(use.calls) + (use.calls == 1 ? " call" : " calls");
    if (use.shader)
      out += "#extension in " + count + " of " + function_name(use.function) + ", the first " +
             std::to_string(use.first_seq);
    else
      out += std::string(function_name(use.function)) + ", " + count + ", the first " +
             std::to_string(use.first_seq);
  }
  return out;
}

std::string short_version(EsVersion v) {
  return "ES " + std::to_string(v / 10) + "." + std::to_string(v % 10);
}

// Why the trace needs its version: the needs that reach it, or the highest.
std::string version_reasons(const Requirements& r) {
  std::string out;
  auto add = [&](const VersionNeed& need, const std::string& what) {
    if (need.version != r.version()) return;
    out += (out.empty() ? "" : "; ") + what;
  };
  add(r.context, "a context of " + short_version(r.context.version) + " (" +
                     call_text(r.context.source) + ")");
  add(r.shaders, "#version of " + short_version(r.shaders.version) + " shaders (" +
                     call_text(r.shaders.source) + ")");
  add(r.functions, std::to_string(r.newest_functions) + " " + short_version(r.functions.version) +
                       (r.newest_functions == 1 ? " function (" : " functions (the first ") +
                       call_text(r.functions.source) + ")");
  return out;
}

void append_need_json(std::string& out, const char* key, const VersionNeed& need) {
  out += ", \"";
  out += key;
  out += "\": ";
  if (need.version == 0) {
    out += "null";
    return;
  }
  out += "{\"version\": ";
  append_json_string(out, es_version_text(need.version));
  out += ", \"function\": ";
  append_json_string(out, function_name(need.source.function));
  out += ", \"call\": " + std::to_string(need.source.seq) + "}";
}

}  // namespace

std::string requirements_text(const Requirements& r) {
  std::string out = "requires:     ";
  if (r.version() == 0)
    out += "no GLES version known (no context, shader or GLES call)\n";
  else
    out += es_version_text(r.version()) + " (" + version_reasons(r) + ")\n";
  if (r.extensions.empty()) out += "extensions:   none\n";
  for (const ExtensionNeed& need : r.extensions)
    out += "extensions:   " + escaped(any_of_text(need.any_of)) + " (" + uses_text(need) + ")\n";
  if (r.limits.empty()) out += "limits:       none beyond the minimums\n";
  for (const LimitNeed& limit : r.limits)
    out += "limits:       " + limit_name(limit.pname) + " >= " + std::to_string(limit.value) +
           " (" + call_text(limit.source) + ")\n";
  return out;
}

std::string requirements_json(const Requirements& r) {
  std::string out = "{\"version\": ";
  if (r.version() == 0)
    out += "null";
  else
    append_json_string(out, es_version_text(r.version()));
  append_need_json(out, "context", r.context);
  append_need_json(out, "shaders", r.shaders);
  append_need_json(out, "functions", r.functions);
  out += ", \"newest_functions\": " + std::to_string(r.newest_functions);
  out += ", \"extensions\": [";
  for (size_t i = 0; i < r.extensions.size(); ++i) {
    const ExtensionNeed& need = r.extensions[i];
    out += i == 0 ? "{\"any_of\": [" : ", {\"any_of\": [";
    for (size_t j = 0; j < need.any_of.size(); ++j) {
      out += j == 0 ? "" : ", ";
      append_json_string(out, need.any_of[j]);
    }
    out += "], \"uses\": [";
    for (size_t j = 0; j < need.uses.size(); ++j) {
      const ExtensionNeed::Use& use = need.uses[j];
      out += j == 0 ? "{\"function\": " : ", {\"function\": ";
      append_json_string(out, function_name(use.function));
      out += std::string(", \"shader\": ") + (use.shader ? "true" : "false") +
             ", \"calls\": " + std::to_string(use.calls) +
             ", \"first_call\": " + std::to_string(use.first_seq) + "}";
    }
    out += "]}";
  }
  out += "], \"limits\": [";
  for (size_t i = 0; i < r.limits.size(); ++i) {
    const LimitNeed& limit = r.limits[i];
    out += i == 0 ? "{\"name\": " : ", {\"name\": ";
    append_json_string(out, limit_name(limit.pname));
    out += ", \"pname\": " + std::to_string(limit.pname) +
           ", \"at_least\": " + std::to_string(limit.value) + ", \"function\": ";
    append_json_string(out, function_name(limit.source.function));
    out += ", \"call\": " + std::to_string(limit.source.seq) + "}";
  }
  out += "], \"calls\": " + std::to_string(r.calls) + "}";
  return out;
}

EsVersion parse_gl_version(const std::string& gl_version) {
  // "OpenGL ES 3.2 Mesa 22.3.6"; ES 1 drivers say "OpenGL ES-CM 1.1".
  for (const char* prefix : {"OpenGL ES ", "OpenGL ES-CM ", "OpenGL ES-CL "}) {
    if (gl_version.rfind(prefix, 0) != 0) continue;
    const char* v = gl_version.c_str() + strlen(prefix);
    if (isdigit(static_cast<unsigned char>(v[0])) && v[1] == '.' &&
        isdigit(static_cast<unsigned char>(v[2])))
      return (v[0] - '0') * 10 + (v[2] - '0');
  }
  return 0;
}

std::vector<std::string> missing_requirements(const Requirements& r,
                                              const DriverCapabilities& driver) {
  std::vector<std::string> lines;
  if (driver.version != 0 && r.version() > driver.version)
    lines.push_back(es_version_text(r.version()) + " (it has " + es_version_text(driver.version) +
                    "; " + version_reasons(r) + ")");
  for (const ExtensionNeed& need : r.extensions) {
    bool has = std::any_of(need.any_of.begin(), need.any_of.end(),
                           [&](const std::string& name) { return driver.extensions.count(name); });
    if (!has) lines.push_back(any_of_text(need.any_of) + " (" + uses_text(need) + ")");
  }
  for (const LimitNeed& limit : r.limits) {
    auto it = driver.limits.find(limit.pname);
    if (it == driver.limits.end() || it->second >= limit.value) continue;
    lines.push_back(limit_name(limit.pname) + " >= " + std::to_string(limit.value) + " (it has " +
                    std::to_string(it->second) + "; " + call_text(limit.source) + ")");
  }
  for (std::string& line : lines) line = escaped(line);
  return lines;
}

std::optional<DriverCapabilities> profile_capabilities(const std::string& profile) {
  const api::Profile* p = api::find_profile(profile.c_str());
  if (p == nullptr) return std::nullopt;
  DriverCapabilities d;
  d.version = p->major * 10 + p->minor;
  d.version_text = es_version_text(d.version) + " (profile " + p->name + ")";
  for (size_t i = 0; i < p->extension_count; ++i) d.extensions.insert(p->extensions[i]);
  for (size_t i = 0; i < p->limit_count; ++i)
    if (!p->limits[i].at_least) d.limits[p->limits[i].pname] = p->limits[i].value;
  return d;
}

}  // namespace gltrace::consumers
