#include "glreplay/state_worker.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <typeinfo>
#include <vector>

#include "consumers/png.h"
#include "glreplay/executor.h"
#include "glreplay/pixel_store.h"
#include "glreplay/session.h"
#include "glreplay/state_table.h"
#include "glreplay/trace_source.h"
#include "gltrace/api/enums.h"
#include "gltrace/api/functions.h"

namespace gltrace::glreplay {

namespace {

using json = nlohmann::ordered_json;

#include "gltrace/api/state_table.inc"

}  // namespace

std::span<const StateEntry> state_table() { return kStateTable; }

UniformType uniform_type(uint32_t type) {
  for (const UniformType& known : kUniformTypes)
    if (known.type == type) return known;
  return {type, 1, UniformRead::kInt};
}

namespace {

// What one request may read at most (the contract's limit).
constexpr int64_t kMaxBufferRead = int64_t{16} << 20;
// Warnings listed in one goto reply; the rest are counted.
constexpr size_t kMaxWarnings = 100;
// A request line longer than this is refused unread (requests are small).
constexpr size_t kMaxRequestLine = size_t{1} << 20;
// Texture units, attributes and attachments looked at, whatever the driver
// allows (a hostile or odd driver must not make a state reply huge).
constexpr GLint kMaxUnits = 256;
constexpr GLint kMaxAttribs = 64;
constexpr GLint kMaxColorAttachments = 32;
constexpr GLint kMaxIndexedBindings = 128;
// Elements of a uniform array whose values are read.
constexpr GLint kMaxUniformElements = 64;

template <typename Pfn>
Pfn real(Session& s, uint32_t id) {
  return reinterpret_cast<Pfn>(s.proc(id));
}
#define GL(name) real<PFN_gltrace_##name>(session_, api::kFn_##name)

std::string base64(const uint8_t* data, size_t size) {
  static constexpr char kDigits[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((size + 2) / 3 * 4);
  for (size_t i = 0; i < size; i += 3) {
    uint32_t v = uint32_t{data[i]} << 16;
    if (i + 1 < size) v |= uint32_t{data[i + 1]} << 8;
    if (i + 2 < size) v |= data[i + 2];
    out += kDigits[(v >> 18) & 63];
    out += kDigits[(v >> 12) & 63];
    out += i + 1 < size ? kDigits[(v >> 6) & 63] : '=';
    out += i + 2 < size ? kDigits[v & 63] : '=';
  }
  return out;
}

// The PNG of an RGBA8 image (bottom row first), through the project's PNG
// writer, which writes files: into an anonymous memory file.
bool png_bytes(uint32_t width, uint32_t height, const uint8_t* rgba, std::string* png,
               std::string* error) {
  int fd = memfd_create("gltrace-png", MFD_CLOEXEC);
  if (fd < 0) {
    *error = std::string("memfd_create: ") + strerror(errno);
    return false;
  }
  bool ok = consumers::write_png("/proc/self/fd/" + std::to_string(fd), width, height, rgba, error);
  if (ok) {
    off_t size = lseek(fd, 0, SEEK_END);
    png->resize(size > 0 ? static_cast<size_t>(size) : 0);
    ok = size > 0 && pread(fd, png->data(), png->size(), 0) == size;
    if (!ok) *error = "cannot read the PNG back";
  }
  close(fd);
  return ok;
}

std::string enum_text(uint32_t value, const char* group) {
  const char* name = api::enum_name(value, group != nullptr && *group != '\0' ? group : nullptr);
  if (name != nullptr) return name;
  char hex_text[16];
  snprintf(hex_text, sizeof hex_text, "0x%X", value);
  return hex_text;
}

// Runs each recorded thread's calls on a thread of its own, one at a time
// (the replay engine's kTargetThreadInOrder, driven call by call): EGL keeps
// a current context per thread. The first recorded thread runs on the
// calling thread itself.
class Lanes {
 public:
  explicit Lanes(std::function<void()> on_exit) : on_exit_(std::move(on_exit)) {}
  ~Lanes() { stop(); }
  Lanes(const Lanes&) = delete;
  Lanes& operator=(const Lanes&) = delete;

  // Runs `task` on `target`'s thread and waits for it.
  void run(uint32_t target, const std::function<void()>& task) {
    if (!main_) main_ = target;
    if (target == *main_) {
      task();
      return;
    }
    std::unique_ptr<Lane>& lane = lanes_[target];
    if (lane == nullptr) {
      lane = std::make_unique<Lane>();
      lane->thread = std::thread([this, l = lane.get()] { loop(*l); });
    }
    std::unique_lock<std::mutex> lock(lane->mutex);
    lane->task = &task;
    lane->wake.notify_all();
    lane->wake.wait(lock, [&] { return lane->task == nullptr; });
  }

  // Ends every thread (each releases what it has current first).
  void stop() {
    for (auto& [target, lane] : lanes_) {
      {
        std::lock_guard<std::mutex> lock(lane->mutex);
        lane->quit = true;
      }
      lane->wake.notify_all();
      lane->thread.join();
    }
    lanes_.clear();
    main_.reset();
  }

 private:
  struct Lane {
    std::thread thread;
    std::mutex mutex;
    std::condition_variable wake;
    const std::function<void()>* task = nullptr;
    bool quit = false;
  };

  void loop(Lane& lane) {
    std::unique_lock<std::mutex> lock(lane.mutex);
    for (;;) {
      lane.wake.wait(lock, [&] { return lane.task != nullptr || lane.quit; });
      if (lane.task != nullptr) {
        (*lane.task)();
        lane.task = nullptr;
        lane.wake.notify_all();
        continue;
      }
      on_exit_();
      return;
    }
  }

  std::function<void()> on_exit_;
  std::optional<uint32_t> main_;
  std::map<uint32_t, std::unique_ptr<Lane>> lanes_;
};

// The next line of `in` (without its newline); false at the end of input.
// A line longer than kMaxRequestLine is skipped to its end: *too_long.
bool read_line(FILE* in, std::string* line, bool* too_long) {
  line->clear();
  *too_long = false;
  int c;
  while ((c = getc_unlocked(in)) != EOF && c != '\n') {
    if (line->size() < kMaxRequestLine)
      line->push_back(static_cast<char>(c));
    else
      *too_long = true;
  }
  if (*too_long) line->clear();
  return c != EOF || !line->empty() || *too_long;
}

// A failed request: its message.
struct RequestError {
  std::string message;
};

class Worker {
 public:
  Worker(TraceSource& source, Session& session, GlExecutor& executor)
      : source_(source),
        session_(session),
        executor_(executor),
        lanes_([&session] { session.release_thread(); }) {
    session_.set_message_hook([this](const std::string& line) {
      if (warnings_.size() < kMaxWarnings)
        warnings_.push_back(line);
      else
        ++more_warnings_;
    });
  }
  ~Worker() { lanes_.stop(); }
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  // One request line; its reply; *quit set by `quit`.
  json handle(const std::string& line, bool* quit) {
    json request = json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (request.is_discarded()) return failure(nullptr, "malformed request: not JSON");
    if (!request.is_object()) return failure(nullptr, "malformed request: not a JSON object");
    auto id = request.find("id");
    if (id == request.end() || !id->is_number_integer())
      return failure(nullptr, "malformed request: no integer \"id\"");
    json reply_id = *id;
    auto op = request.find("op");
    if (op == request.end() || !op->is_string())
      return failure(reply_id, "malformed request: no string \"op\"");
    try {
      json reply = {{"id", reply_id}, {"ok", true}};
      const std::string name = op->get<std::string>();
      if (name == "quit") {
        *quit = true;
      } else if (name == "goto") {
        go_to(request, reply);
      } else if (name == "state") {
        on_current_thread([&] { state(reply); });
      } else if (name == "framebuffer") {
        on_current_thread([&] { framebuffer(reply); });
      } else if (name == "texture") {
        on_current_thread([&] { texture(request, reply); });
      } else if (name == "buffer") {
        on_current_thread([&] { buffer(request, reply); });
      } else if (name == "shader") {
        on_current_thread([&] { shader(request, reply); });
      } else {
        throw RequestError{"unknown op '" + name + "'"};
      }
      return reply;
    } catch (const RequestError& e) {
      return failure(reply_id, e.message);
    }
  }

 private:
  static json failure(const json& id, const std::string& message) {
    return {{"id", id}, {"ok", false}, {"error", message}};
  }

  static int64_t integer_field(const json& request, const char* field, bool required,
                               int64_t fallback = 0) {
    auto it = request.find(field);
    if (it == request.end() || it->is_null()) {
      if (required) throw RequestError{std::string("missing \"") + field + "\""};
      return fallback;
    }
    if (!it->is_number_integer())
      throw RequestError{std::string("\"") + field + "\" is not an integer"};
    return it->get<int64_t>();
  }

  // --- goto -----------------------------------------------------------------------------

  void go_to(const json& request, json& reply) {
    int64_t target = integer_field(request, "call", true);
    if (target < 0) throw RequestError{"\"call\" is negative"};
    auto call = static_cast<uint64_t>(target);
    auto start = std::chrono::steady_clock::now();
    warnings_.clear();
    more_warnings_ = 0;
    bool restarted = false;
    if (position_ && call < *position_) {
      restart();
      restarted = true;
    }
    uint64_t replayed = 0;
    std::string source_error;
    bool ended = false;
    while (!position_ || *position_ < call) {
      replay::Increment increment;
      if (pending_) {
        increment = std::move(*pending_);
        pending_.reset();
      } else {
        replay::SourceResult result = source_.next(&increment, &source_error);
        if (result == replay::SourceResult::kEnd) {
          ended = true;
          break;
        }
        if (result == replay::SourceResult::kError) break;
      }
      if (increment.index > call) {
        pending_ = std::move(increment);  // the next goto starts with it
        break;
      }
      std::string error;
      bool ok = true;
      // The trace's context index of the call (as `gltrace info` lists
      // contexts): the state reply's "context".
      if (increment.payload != nullptr && typeid(*increment.payload) == typeid(Call))
        context_ = static_cast<const Call&>(*increment.payload).context;
      lanes_.run(increment.target, [&] { ok = executor_.execute(increment, &error); });
      if (!ok && warnings_.size() < kMaxWarnings)
        warnings_.push_back("call " + std::to_string(increment.index) + ": " + error);
      position_ = increment.index;
      thread_ = increment.target;
      ++replayed;
    }
    double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (!source_error.empty())
      throw RequestError{"trace error after call " + position_text() + ": " + source_error};
    if (ended && (!position_ || *position_ < call) && source_.at_written_end())
      throw RequestError{"call " + std::to_string(call) +
                         " is not written yet: the trace holds calls up to " + position_text() +
                         " so far (its capture is still writing it, or was cut short)"};
    if (ended && (!position_ || *position_ < call))
      throw RequestError{"call " + std::to_string(call) +
                         " is past the end of the trace (its last call is " + position_text() +
                         ")"};
    // A trace whose capture began mid-run starts past call 0.
    if (!position_ && pending_)
      throw RequestError{"call " + std::to_string(call) + " is before the trace's first call " +
                         std::to_string(pending_->index)};
    if (more_warnings_ != 0)
      warnings_.push_back("... and " + std::to_string(more_warnings_) + " more");
    reply["call"] = call;
    reply["replayed"] = replayed;
    reply["restarted"] = restarted;
    reply["ms"] = ms;
    reply["warnings"] = warnings_;
  }

  std::string position_text() const {
    return position_ ? std::to_string(*position_) : std::string("none");
  }

  // Back to before the first call: every replay thread ends, the session
  // forgets everything, the source reads from the start.
  void restart() {
    lanes_.stop();
    pending_.reset();
    position_.reset();
    std::string error;
    executor_.restart(&error);
    if (!source_.rewind(&error)) throw RequestError{"cannot restart the replay: " + error};
  }

  // --- queries, on the thread of the last call ----------------------------------------

  void on_current_thread(const std::function<void()>& query) {
    if (!position_) throw RequestError{"no call replayed yet: goto a call first"};
    std::optional<RequestError> failed;
    lanes_.run(thread_, [&] {
      session_.set_thread(thread_);
      try {
        query();
      } catch (const RequestError& e) {
        failed = e;
      } catch (const std::exception& e) {  // not to end the replay thread
        failed = RequestError{std::string("internal error: ") + e.what()};
      }
    });
    if (failed) throw *failed;
  }

  void need_context() {
    if (!session_.has_current())
      throw RequestError{"no context is current on the thread of call " + position_text()};
  }

  // The context's GLES version, as its GL_VERSION says ("OpenGL ES 3.2 ...").
  void read_version() {
    major_ = session_.current().client_version;
    minor_ = 0;
    auto get_string = GL(glGetString);
    const GLubyte* text = get_string != nullptr ? get_string(GL_VERSION) : nullptr;
    int major = 0, minor = 0;
    if (text != nullptr &&
        sscanf(reinterpret_cast<const char*>(text), "OpenGL ES %d.%d", &major, &minor) == 2) {
      major_ = major;
      minor_ = minor;
    }
  }
  bool has(const StateEntry& e) const {
    return major_ > e.major || (major_ == e.major && minor_ >= e.minor);
  }
  bool es3() const { return major_ >= 3; }

  void clear_errors() {
    auto get_error = GL(glGetError);
    for (int i = 0; i < 16 && get_error() != GL_NO_ERROR; ++i) {
    }
  }
  GLint integer(GLenum pname) {
    GLint value = 0;
    GL(glGetIntegerv)(pname, &value);
    return value;
  }

  // Where an entry is read: the object or index it is about.
  struct Subject {
    GLenum target = 0;      // texture, framebuffer
    GLuint index = 0;       // attribute
    GLenum attachment = 0;  // framebuffer attachment
    GLuint object = 0;      // program, shader
    EGLConfig config = nullptr;
  };

  // Reads an entry's raw values: ints (or floats for kFloat). False when the
  // driver has no such query or refused it.
  bool read(const StateEntry& e, const Subject& at, int64_t* ints, double* floats) {
    clear_errors();
    GLint values[16] = {};
    bool ok = true;
    EGLDisplay display = session_.display();
    switch (e.query) {
      case StateQuery::kInteger:
        GL(glGetIntegerv)(e.pname, values);
        break;
      case StateQuery::kIntegerIndexed: {
        auto get = GL(glGetIntegeri_v);
        if (get == nullptr) return false;
        get(e.pname, at.index, values);
        break;
      }
      case StateQuery::kFloat: {
        GLfloat f[16] = {};
        GL(glGetFloatv)(e.pname, f);
        for (int i = 0; i < e.count; ++i) floats[i] = f[i];
        break;
      }
      case StateQuery::kBoolean: {
        GLboolean b[16] = {};
        GL(glGetBooleanv)(e.pname, b);
        for (int i = 0; i < e.count; ++i) values[i] = b[i];
        break;
      }
      case StateQuery::kEnabled:
        values[0] = GL(glIsEnabled)(e.pname);
        break;
      case StateQuery::kEglContext: {
        EGLint v = 0;
        ok = GL(eglQueryContext)(display, session_.current().context, static_cast<EGLint>(e.pname),
                                 &v) == EGL_TRUE;
        values[0] = v;
        return finish(e, ok, values, ints);
      }
      case StateQuery::kEglDraw:
      case StateQuery::kEglRead: {
        EGLSurface surface = e.query == StateQuery::kEglDraw ? session_.current_draw_surface()
                                                             : session_.current_read_surface();
        EGLint v = 0;
        ok = surface != EGL_NO_SURFACE &&
             GL(eglQuerySurface)(display, surface, static_cast<EGLint>(e.pname), &v) == EGL_TRUE;
        values[0] = v;
        return finish(e, ok, values, ints);
      }
      case StateQuery::kEglConfig: {
        EGLint v = 0;
        ok = at.config != nullptr &&
             GL(eglGetConfigAttrib)(display, at.config, static_cast<EGLint>(e.pname), &v) ==
                 EGL_TRUE;
        values[0] = v;
        return finish(e, ok, values, ints);
      }
      case StateQuery::kTexParameter:
        GL(glGetTexParameteriv)(at.target, e.pname, values);
        break;
      case StateQuery::kTexLevelParameter: {
        auto get = GL(glGetTexLevelParameteriv);
        if (get == nullptr) return false;
        GLenum target =
            at.target == GL_TEXTURE_CUBE_MAP ? GL_TEXTURE_CUBE_MAP_POSITIVE_X : at.target;
        get(target, 0, e.pname, values);
        break;
      }
      case StateQuery::kVertexAttrib:
        GL(glGetVertexAttribiv)(at.index, e.pname, values);
        break;
      case StateQuery::kVertexAttribPointer: {
        void* pointer = nullptr;
        GL(glGetVertexAttribPointerv)(at.index, e.pname, &pointer);
        ints[0] = static_cast<int64_t>(reinterpret_cast<uintptr_t>(pointer));
        return GL(glGetError)() == GL_NO_ERROR;
      }
      case StateQuery::kAttachment:
        GL(glGetFramebufferAttachmentParameteriv)(at.target, at.attachment, e.pname, values);
        break;
      case StateQuery::kProgram:
        GL(glGetProgramiv)(at.object, e.pname, values);
        break;
      case StateQuery::kShader:
        GL(glGetShaderiv)(at.object, e.pname, values);
        break;
    }
    ok = GL(glGetError)() == GL_NO_ERROR;
    return finish(e, ok, values, ints);
  }
  static bool finish(const StateEntry& e, bool ok, const GLint* values, int64_t* ints) {
    for (int i = 0; i < e.count; ++i) ints[i] = values[i];
    return ok;
  }

  // An object name as the reply shows it: the trace's name.
  json object(ObjectClass cls, uint64_t replayed) {
    if (replayed == 0) return nullptr;
    std::optional<uint64_t> recorded = session_.recorded_name(cls, replayed);
    if (recorded) return {{"name", *recorded}};
    // Made by the replay alone (none of the trace's names): said so.
    return {{"name", nullptr}, {"replay_name", replayed}};
  }

  json value_of(const StateEntry& e, int64_t raw, double real_value, int64_t attachment_type) {
    switch (e.kind) {
      case StateKind::kInt:
        return raw;
      case StateKind::kFloat:
        return real_value;
      case StateKind::kBool:
        return raw != 0;
      case StateKind::kEnum:
        return enum_text(static_cast<uint32_t>(raw), e.enum_group);
      case StateKind::kEglEnum: {
        const char* name = api::egl_enum_name(static_cast<uint32_t>(raw));
        return name != nullptr ? json(name) : json(raw);
      }
      case StateKind::kObject:
        return object(e.cls, static_cast<uint64_t>(raw));
      case StateKind::kAttachmentObject:
        if (attachment_type == GL_TEXTURE)
          return object(ObjectClass::kTexture, static_cast<uint64_t>(raw));
        if (attachment_type == GL_RENDERBUFFER)
          return object(ObjectClass::kRenderbuffer, static_cast<uint64_t>(raw));
        return nullptr;
    }
    return nullptr;
  }

  // Every entry of `group` this context has, read at `at`, into `out`
  // (key: value; an entry the driver refused is left out). *raw_out gets
  // the first raw value of each, for the loops that decide on them.
  void read_group(StateGroup group, const Subject& at, json& out,
                  std::map<std::string, int64_t>* raw_out = nullptr, GLenum target = 0,
                  int64_t attachment_type = 0) {
    for (const StateEntry& e : state_table()) {
      if (e.group != group || !has(e) || e.target != target) continue;
      int64_t ints[16] = {};
      double floats[16] = {};
      if (!read(e, at, ints, floats)) continue;
      if (raw_out != nullptr) (*raw_out)[e.key] = ints[0];
      if (e.count == 1) {
        out[e.key] = value_of(e, ints[0], floats[0], attachment_type);
      } else {
        json list = json::array();
        for (int i = 0; i < e.count; ++i)
          list.push_back(value_of(e, ints[i], floats[i], attachment_type));
        out[e.key] = std::move(list);
      }
    }
  }

  // --- state --------------------------------------------------------------------------

  void state(json& reply) {
    reply["call"] = *position_;
    reply["thread"] = thread_;
    if (!session_.has_current()) {
      reply["context"] = nullptr;
      reply["state"] = {{"egl", {{"context", nullptr}}}};
      return;
    }
    reply["context"] = context_;
    read_version();
    json state = json::object();
    state["egl"] = egl_state();
    json bindings = json::object();
    read_group(StateGroup::kBindings, {}, bindings);
    state["bindings"] = std::move(bindings);
    json pipeline = json::object();
    read_group(StateGroup::kPipeline, {}, pipeline);
    state["pipeline"] = std::move(pipeline);
    state["program"] = program_state();
    state["textures"] = texture_state();
    state["framebuffer"] = framebuffer_state();
    json vertex_arrays = vertex_array_state();
    state["vertex_arrays"] = std::move(vertex_arrays);
    state["indexed_buffers"] = indexed_buffer_state();
    state["element_buffer"] = object(
        ObjectClass::kBuffer, static_cast<uint64_t>(integer(GL_ELEMENT_ARRAY_BUFFER_BINDING)));
    reply["state"] = std::move(state);
  }

  static std::string handle_text(uint64_t handle) { return handle != 0 ? hex(handle) : "none"; }

  json egl_state() {
    json egl = json::object();
    EGLDisplay display = session_.display();
    auto query_string = GL(eglQueryString);
    const char* vendor = query_string != nullptr ? query_string(display, EGL_VENDOR) : nullptr;
    const char* version = query_string != nullptr ? query_string(display, EGL_VERSION) : nullptr;
    egl["display"] = {{"vendor", vendor != nullptr ? vendor : ""},
                      {"version", version != nullptr ? version : ""}};
    // EGL handles are the trace's (recorded) ones, as hexadecimal text.
    egl["context"] = handle_text(session_.current_context());
    egl["draw_surface"] = handle_text(session_.current_draw());
    egl["read_surface"] = handle_text(session_.current_read());
    Subject at;
    EGLint config_id = 0;
    if (GL(eglQueryContext)(display, session_.current().context, EGL_CONFIG_ID, &config_id)) {
      const EGLint attribs[] = {EGL_CONFIG_ID, config_id, EGL_NONE};
      EGLint count = 0;
      if (!GL(eglChooseConfig)(display, attribs, &at.config, 1, &count) || count != 1)
        at.config = nullptr;
    }
    read_group(StateGroup::kEgl, at, egl);
    const GLubyte* gl_version = GL(glGetString)(GL_VERSION);
    egl["gl_version"] = gl_version != nullptr ? reinterpret_cast<const char*>(gl_version) : "";
    return egl;
  }

  std::string program_info_log(GLuint program) {
    GLint length = 0;
    GL(glGetProgramiv)(program, GL_INFO_LOG_LENGTH, &length);
    std::string log(static_cast<size_t>(std::max(length, 1)), '\0');
    GLsizei written = 0;
    GL(glGetProgramInfoLog)(program, static_cast<GLsizei>(log.size()), &written, log.data());
    log.resize(static_cast<size_t>(std::max(written, 0)));
    return log;
  }

  json program_state() {
    auto replayed = static_cast<GLuint>(integer(GL_CURRENT_PROGRAM));
    if (replayed == 0) return nullptr;
    json program = json::object();
    program["name"] = object(ObjectClass::kProgram, replayed);
    Subject at;
    at.object = replayed;
    std::map<std::string, int64_t> raw;
    read_group(StateGroup::kProgram, at, program, &raw);
    std::optional<uint64_t> recorded = session_.recorded_name(ObjectClass::kProgram, replayed);
    // Attributes.
    json attributes = json::array();
    GLint max_name = 0;
    GL(glGetProgramiv)(replayed, GL_ACTIVE_ATTRIBUTE_MAX_LENGTH, &max_name);
    std::vector<char> name(static_cast<size_t>(std::max(max_name, 1)) + 1);
    for (GLint i = 0; i < raw["active_attributes"]; ++i) {
      GLsizei length = 0;
      GLint size = 0;
      GLenum type = 0;
      auto active_attrib = GL(glGetActiveAttrib);
      active_attrib(replayed, static_cast<GLuint>(i), static_cast<GLsizei>(name.size()), &length,
                    &size, &type, name.data());
      attributes.push_back({{"name", std::string(name.data(), static_cast<size_t>(length))},
                            {"location", GL(glGetAttribLocation)(replayed, name.data())},
                            {"type", enum_text(type, "AttributeType")},
                            {"size", size}});
    }
    program["attributes"] = std::move(attributes);
    // Uniforms, with their values.
    json uniforms = json::array();
    GL(glGetProgramiv)(replayed, GL_ACTIVE_UNIFORM_MAX_LENGTH, &max_name);
    name.assign(static_cast<size_t>(std::max(max_name, 1)) + 8, '\0');
    for (GLint i = 0; i < raw["active_uniforms"]; ++i) {
      GLsizei length = 0;
      GLint size = 0;
      GLenum type = 0;
      auto active_uniform = GL(glGetActiveUniform);
      active_uniform(replayed, static_cast<GLuint>(i), static_cast<GLsizei>(name.size()), &length,
                     &size, &type, name.data());
      std::string uniform_name(name.data(), static_cast<size_t>(length));
      GLint location = GL(glGetUniformLocation)(replayed, uniform_name.c_str());
      json entry = {{"name", uniform_name},
                    {"location", location >= 0 && recorded
                                     ? session_.recorded_uniform_location(*recorded, location)
                                     : location},
                    {"type", enum_text(type, "UniformType")},
                    {"size", size}};
      if (location >= 0)
        entry["value"] = uniform_value(replayed, uniform_name, location, type, size);
      uniforms.push_back(std::move(entry));
    }
    program["uniforms"] = std::move(uniforms);
    // Uniform blocks (ES 3).
    json blocks = json::array();
    if (es3()) {
      auto block_name = GL(glGetActiveUniformBlockName);
      auto block_param = GL(glGetActiveUniformBlockiv);
      for (GLint i = 0; i < raw["active_uniform_blocks"]; ++i) {
        auto block = static_cast<GLuint>(i);
        GLsizei length = 0;
        block_name(replayed, block, static_cast<GLsizei>(name.size()), &length, name.data());
        GLint binding = 0, size = 0;
        block_param(replayed, block, GL_UNIFORM_BLOCK_BINDING, &binding);
        block_param(replayed, block, GL_UNIFORM_BLOCK_DATA_SIZE, &size);
        blocks.push_back({{"name", std::string(name.data(), static_cast<size_t>(length))},
                          {"binding", binding},
                          {"size", size}});
      }
    }
    program["uniform_blocks"] = std::move(blocks);
    program["info_log"] = program_info_log(replayed);
    return program;
  }

  // The values of a uniform: its components, element after element of an
  // array (the first kMaxUniformElements).
  json uniform_value(GLuint program, const std::string& name, GLint location, GLenum type,
                     GLint size) {
    UniformType shape = uniform_type(type);
    json values = json::array();
    std::string base = name;
    if (base.size() > 3 && base.compare(base.size() - 3, 3, "[0]") == 0)
      base.resize(base.size() - 3);
    auto uniform_location = GL(glGetUniformLocation);
    for (GLint k = 0; k < std::min(size, kMaxUniformElements); ++k) {
      std::string element = base + "[" + std::to_string(k) + "]";
      GLint at = k == 0 ? location : uniform_location(program, element.c_str());
      if (at < 0) break;
      if (shape.read == UniformRead::kFloat) {
        GLfloat v[16] = {};
        GL(glGetUniformfv)(program, at, v);
        for (int c = 0; c < shape.components; ++c) values.push_back(v[c]);
      } else if (shape.read == UniformRead::kUint && es3()) {
        GLuint v[16] = {};
        GL(glGetUniformuiv)(program, at, v);
        for (int c = 0; c < shape.components; ++c) values.push_back(v[c]);
      } else {
        GLint v[16] = {};
        GL(glGetUniformiv)(program, at, v);
        for (int c = 0; c < shape.components; ++c) {
          if (shape.read == UniformRead::kBool)
            values.push_back(v[c] != 0);
          else
            values.push_back(v[c]);
        }
      }
    }
    return values;
  }

  json texture_state() {
    json textures = json::array();
    GLint active = integer(GL_ACTIVE_TEXTURE);
    GLint units = std::min(integer(GL_MAX_COMBINED_TEXTURE_IMAGE_UNITS), kMaxUnits);
    auto set_active = GL(glActiveTexture);
    for (GLint unit = 0; unit < units; ++unit) {
      set_active(static_cast<GLenum>(GL_TEXTURE0 + unit));
      json unit_state = json::object();
      read_group(StateGroup::kTextureUnit, {}, unit_state);  // no target: the sampler
      json sampler = unit_state.contains("sampler") ? unit_state["sampler"] : json(nullptr);
      for (const StateEntry& e : state_table()) {
        if (e.group != StateGroup::kTextureUnit || e.target == 0 || !has(e)) continue;
        int64_t ints[16] = {};
        double floats[16] = {};
        if (!read(e, {}, ints, floats) || ints[0] == 0) continue;
        json entry = {{"unit", unit},
                      {"target", e.key},
                      {"texture", value_of(e, ints[0], 0, 0)},
                      {"sampler", sampler}};
        Subject at;
        at.target = e.target;
        read_group(StateGroup::kTexture, at, entry);
        textures.push_back(std::move(entry));
      }
    }
    set_active(static_cast<GLenum>(active));
    return textures;
  }

  json framebuffer_state() {
    json framebuffer = json::object();
    bool three = es3();
    for (bool draw : {true, false}) {
      GLenum target = !three ? GL_FRAMEBUFFER : draw ? GL_DRAW_FRAMEBUFFER : GL_READ_FRAMEBUFFER;
      GLint bound = integer(draw || !three ? GL_FRAMEBUFFER_BINDING : GL_READ_FRAMEBUFFER_BINDING);
      json fb = json::object();
      fb["name"] = bound == 0 ? json(nullptr)
                              : object(ObjectClass::kFramebuffer, static_cast<uint64_t>(bound));
      fb["default"] = bound == 0;
      fb["status"] = enum_text(GL(glCheckFramebufferStatus)(target), "FramebufferStatus");
      std::vector<GLenum> points;
      if (bound == 0) {
        if (three) points = {GL_BACK, GL_DEPTH, GL_STENCIL};  // ES 2 cannot ask
      } else {
        GLint colors =
            three ? std::min(integer(GL_MAX_COLOR_ATTACHMENTS), kMaxColorAttachments) : 1;
        for (GLint i = 0; i < colors; ++i)
          points.push_back(static_cast<GLenum>(GL_COLOR_ATTACHMENT0 + i));
        points.push_back(GL_DEPTH_ATTACHMENT);
        points.push_back(GL_STENCIL_ATTACHMENT);
      }
      json attachments = json::array();
      for (GLenum point : points) {
        Subject at;
        at.target = target;
        at.attachment = point;
        clear_errors();
        GLint type = GL_NONE;
        auto attachment_param = GL(glGetFramebufferAttachmentParameteriv);
        attachment_param(target, point, GL_FRAMEBUFFER_ATTACHMENT_OBJECT_TYPE, &type);
        if (GL(glGetError)() != GL_NO_ERROR || type == GL_NONE) continue;
        json entry = {{"attachment", enum_text(point, "FramebufferAttachment")}};
        read_group(StateGroup::kAttachment, at, entry, nullptr, 0, type);
        attachments.push_back(std::move(entry));
      }
      fb["attachments"] = std::move(attachments);
      if (draw && three) {
        json buffers = json::array();
        GLint count = std::min(integer(GL_MAX_DRAW_BUFFERS), kMaxColorAttachments);
        for (GLint i = 0; i < count; ++i) {
          GLint buffer = integer(static_cast<GLenum>(GL_DRAW_BUFFER0 + i));
          if (buffer != GL_NONE)
            buffers.push_back(enum_text(static_cast<uint32_t>(buffer), "DrawBufferMode"));
        }
        fb["draw_buffers"] = std::move(buffers);
      }
      framebuffer[draw ? "draw" : "read"] = std::move(fb);
    }
    return framebuffer;
  }

  // The buffers bound at each index of the table's indexed targets (uniform,
  // transform feedback, storage, atomic counter), where one is.
  json indexed_buffer_state() {
    json buffers = json::array();
    std::vector<std::pair<GLenum, GLenum>> targets;  // (target, limit), in table order
    for (const StateEntry& e : state_table()) {
      if (e.group != StateGroup::kIndexedBuffer || !has(e)) continue;
      if (targets.empty() || targets.back().first != e.target)
        targets.emplace_back(e.target, e.limit);
    }
    for (const auto& [target, limit] : targets) {
      GLint count = std::min(integer(limit), kMaxIndexedBindings);
      for (GLint index = 0; index < count; ++index) {
        Subject at;
        at.index = static_cast<GLuint>(index);
        json entry = {{"target", enum_text(target, "BufferTargetARB")}, {"index", index}};
        std::map<std::string, int64_t> raw;
        read_group(StateGroup::kIndexedBuffer, at, entry, &raw, target);
        if (raw["buffer"] != 0) buffers.push_back(std::move(entry));
      }
    }
    return buffers;
  }

  json vertex_array_state() {
    json attributes = json::array();
    GLint count = std::min(integer(GL_MAX_VERTEX_ATTRIBS), kMaxAttribs);
    for (GLint index = 0; index < count; ++index) {
      Subject at;
      at.index = static_cast<GLuint>(index);
      json entry = {{"index", index}};
      std::map<std::string, int64_t> raw;
      read_group(StateGroup::kVertexAttrib, at, entry, &raw);
      // Anything set: enabled, or pointing into a buffer.
      if (raw["enabled"] == 0 && raw["buffer"] == 0) continue;
      // A client array's pointer is an address in the traced process (or
      // in the replay), not an offset: said so instead.
      if (raw["buffer"] == 0 && entry.contains("offset")) {
        entry["offset"] = nullptr;
        entry["client_memory"] = true;
      }
      attributes.push_back(std::move(entry));
    }
    return attributes;
  }

  // --- read-backs -----------------------------------------------------------------------

  // Reads the color image attached to the bound read framebuffer at
  // `attachment` (GL_BACK for the default one), width x height, as RGBA8.
  void read_pixels(GLenum attachment, GLint width, GLint height, json& reply) {
    if (width <= 0 || height <= 0) throw RequestError{"the image is empty"};
    if (static_cast<int64_t>(width) * height > (int64_t{1} << 26))
      throw RequestError{"the image is too large to read back (" + std::to_string(width) + "x" +
                         std::to_string(height) + ")"};
    bool three = es3();
    GLint read_buffer = 0;
    if (three) {
      read_buffer = integer(GL_READ_BUFFER);
      GL(glReadBuffer)(attachment);
    }
    std::vector<uint8_t> pixels(static_cast<size_t>(width) * static_cast<size_t>(height) * 4);
    clear_errors();
    GLenum error = GL_NO_ERROR;
    {
      PixelStoreScope packing(GL(glGetIntegerv), GL(glPixelStorei), GL(glBindBuffer), three,
                              PixelStoreScope::Direction::kPack);
      GL(glReadPixels)(0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, pixels.data());
      error = GL(glGetError)();
    }
    if (three) GL(glReadBuffer)(static_cast<GLenum>(read_buffer));
    if (error != GL_NO_ERROR)
      throw RequestError{"glReadPixels as RGBA8 failed (" + enum_text(error, "ErrorCode") +
                         "): the image's format cannot be read back as 8-bit RGBA"};
    std::string png, png_error;
    if (!png_bytes(static_cast<uint32_t>(width), static_cast<uint32_t>(height), pixels.data(), &png,
                   &png_error))
      throw RequestError{png_error};
    reply["width"] = width;
    reply["height"] = height;
    reply["png"] = base64(reinterpret_cast<const uint8_t*>(png.data()), png.size());
  }

  // The size of a texture level (ES 3.1 glGetTexLevelParameteriv), with the
  // texture bound for the query and the binding put back.
  void texture_level(GLenum target, GLenum face_target, GLuint texture, GLint level, GLint* width,
                     GLint* height, GLint* depth, GLint* format) {
    auto get_level = GL(glGetTexLevelParameteriv);
    if (get_level == nullptr || major_ < 3 || (major_ == 3 && minor_ < 1))
      throw RequestError{"reading a texture's size needs ES 3.1 (glGetTexLevelParameteriv)"};
    with_texture(target, texture, [&] {
      get_level(face_target, level, GL_TEXTURE_WIDTH, width);
      get_level(face_target, level, GL_TEXTURE_HEIGHT, height);
      get_level(face_target, level, GL_TEXTURE_DEPTH, depth);
      get_level(face_target, level, GL_TEXTURE_INTERNAL_FORMAT, format);
    });
  }

  // The target a texture was made for: the one of the table's targets it
  // binds to (binding it to another is an error).
  GLenum texture_target(GLuint texture) {
    for (const StateEntry& e : state_table()) {
      if (e.group != StateGroup::kTextureUnit || e.target == 0 || !has(e)) continue;
      try {
        with_texture(e.target, texture, [] {});
        return e.target;
      } catch (const RequestError&) {
      }
    }
    throw RequestError{"texture of an unknown target"};
  }

  // Runs `use` with `texture` bound to `target` of the active unit; the
  // app's binding is put back after.
  void with_texture(GLenum target, GLuint texture, const std::function<void()>& use) {
    GLenum binding_name = 0;
    for (const StateEntry& e : state_table())
      if (e.group == StateGroup::kTextureUnit && e.target == target) binding_name = e.pname;
    if (binding_name == 0)
      throw RequestError{"unsupported texture target " + enum_text(target, "TextureTarget")};
    GLint old = integer(binding_name);
    clear_errors();
    GL(glBindTexture)(target, texture);
    if (GL(glGetError)() != GL_NO_ERROR) {
      GL(glBindTexture)(target, static_cast<GLuint>(old));
      throw RequestError{"the texture is not a " + enum_text(target, "TextureTarget")};
    }
    use();
    GL(glBindTexture)(target, static_cast<GLuint>(old));
  }

  void framebuffer(json& reply) {
    need_context();
    read_version();
    bool three = es3();
    GLint draw = integer(GL_FRAMEBUFFER_BINDING);
    GLint read_fb = three ? integer(GL_READ_FRAMEBUFFER_BINDING) : draw;
    GLenum read_target = three ? GL_READ_FRAMEBUFFER : GL_FRAMEBUFFER;
    GLint width = 0, height = 0;
    GLenum attachment = GL_BACK;
    if (draw == 0) {
      EGLSurface surface = session_.current_draw_surface();
      if (surface == EGL_NO_SURFACE) throw RequestError{"no draw surface is current"};
      GL(eglQuerySurface)(session_.display(), surface, EGL_WIDTH, &width);
      GL(eglQuerySurface)(session_.display(), surface, EGL_HEIGHT, &height);
    } else {
      // Its first color attachment, whole.
      attachment = GL_COLOR_ATTACHMENT0;
      auto attachment_param = GL(glGetFramebufferAttachmentParameteriv);
      GLint type = GL_NONE, name = 0;
      attachment_param(GL_FRAMEBUFFER, attachment, GL_FRAMEBUFFER_ATTACHMENT_OBJECT_TYPE, &type);
      attachment_param(GL_FRAMEBUFFER, attachment, GL_FRAMEBUFFER_ATTACHMENT_OBJECT_NAME, &name);
      if (type == GL_RENDERBUFFER) {
        GLint old = integer(GL_RENDERBUFFER_BINDING);
        GL(glBindRenderbuffer)(GL_RENDERBUFFER, static_cast<GLuint>(name));
        GL(glGetRenderbufferParameteriv)(GL_RENDERBUFFER, GL_RENDERBUFFER_WIDTH, &width);
        GL(glGetRenderbufferParameteriv)(GL_RENDERBUFFER, GL_RENDERBUFFER_HEIGHT, &height);
        GL(glBindRenderbuffer)(GL_RENDERBUFFER, static_cast<GLuint>(old));
      } else if (type == GL_TEXTURE) {
        GLint level = 0, face = 0, depth = 0, format = 0;
        attachment_param(GL_FRAMEBUFFER, attachment, GL_FRAMEBUFFER_ATTACHMENT_TEXTURE_LEVEL,
                         &level);
        attachment_param(GL_FRAMEBUFFER, attachment,
                         GL_FRAMEBUFFER_ATTACHMENT_TEXTURE_CUBE_MAP_FACE, &face);
        auto texture = static_cast<GLuint>(name);
        GLenum target = texture_target(texture);
        texture_level(target, face != 0 ? static_cast<GLenum>(face) : target, texture, level,
                      &width, &height, &depth, &format);
      } else {
        throw RequestError{"the bound draw framebuffer has no color attachment 0"};
      }
    }
    GL(glBindFramebuffer)(read_target, static_cast<GLuint>(draw));
    try {
      read_pixels(attachment, width, height, reply);
    } catch (const RequestError&) {
      GL(glBindFramebuffer)(read_target, static_cast<GLuint>(read_fb));
      throw;
    }
    GL(glBindFramebuffer)(read_target, static_cast<GLuint>(read_fb));
    reply["framebuffer"] =
        draw == 0 ? json(nullptr) : object(ObjectClass::kFramebuffer, static_cast<uint64_t>(draw));
  }

  // A recorded object name of the request, as the replay names it.
  uint64_t replay_name(const json& request, ObjectClass cls, const char* what) {
    int64_t recorded = integer_field(request, "name", true);
    if (recorded <= 0)
      throw RequestError{std::string("\"name\" must be a ") + what + " name (> 0)"};
    if (!session_.defines_name(cls, static_cast<uint64_t>(recorded)))
      throw RequestError{"no " + std::string(what) + " " + std::to_string(recorded) +
                         " exists in the trace's context at call " + position_text()};
    return session_.map_name(cls, static_cast<uint64_t>(recorded));
  }

  void texture(const json& request, json& reply) {
    need_context();
    read_version();
    auto texture = static_cast<GLuint>(replay_name(request, ObjectClass::kTexture, "texture"));
    if (GL(glIsTexture)(texture) != GL_TRUE)
      throw RequestError{"texture " + std::to_string(integer_field(request, "name", true)) +
                         " has been deleted or never bound"};
    auto target_field = request.find("target");
    std::string target_name = target_field != request.end() && target_field->is_string()
                                  ? target_field->get<std::string>()
                                  : "GL_TEXTURE_2D";
    GLenum target = 0;
    for (const StateEntry& e : state_table())
      if (e.group == StateGroup::kTextureUnit && e.target != 0 && target_name == e.key)
        target = e.target;
    if (target == 0 || target == GL_TEXTURE_2D_MULTISAMPLE)
      throw RequestError{"cannot read back a texture of target '" + target_name + "'"};
    auto level = static_cast<GLint>(integer_field(request, "level", false));
    int64_t layer = integer_field(request, "layer", false);
    int64_t face = integer_field(request, "face", false);
    if (level < 0 || level > 31) throw RequestError{"\"level\" must be 0 to 31"};
    if (face < 0 || face > 5) throw RequestError{"\"face\" must be 0 to 5"};
    if (layer < 0 || layer > 65535) throw RequestError{"\"layer\" is out of range"};
    bool cube = target == GL_TEXTURE_CUBE_MAP;
    GLenum face_target = cube ? static_cast<GLenum>(GL_TEXTURE_CUBE_MAP_POSITIVE_X + face) : target;
    GLint width = 0, height = 0, depth = 0, format = 0;
    texture_level(target, face_target, texture, level, &width, &height, &depth, &format);
    if (width == 0)
      throw RequestError{"level " + std::to_string(level) + " of the texture is empty"};
    bool layered = target == GL_TEXTURE_3D || target == GL_TEXTURE_2D_ARRAY ||
                   target == GL_TEXTURE_CUBE_MAP_ARRAY;
    if (layered && layer >= depth)
      throw RequestError{"layer " + std::to_string(layer) + " is past the texture's " +
                         std::to_string(depth) + " layers"};
    // Through a framebuffer of the worker's own (GLES has no glGetTexImage),
    // the app's bindings put back after. A level other than the base one
    // can be attached only when the texture is mipmap complete (ES 3.0
    // 9.4.1): its base level is moved to that level meanwhile.
    bool three = es3();
    GLint base_level = 0;
    if (three) {
      with_texture(target, texture, [&] {
        GL(glGetTexParameteriv)(target, GL_TEXTURE_BASE_LEVEL, &base_level);
        if (base_level != level) GL(glTexParameteri)(target, GL_TEXTURE_BASE_LEVEL, level);
      });
    }
    GLenum fb_target = three ? GL_READ_FRAMEBUFFER : GL_FRAMEBUFFER;
    GLint old = integer(three ? GL_READ_FRAMEBUFFER_BINDING : GL_FRAMEBUFFER_BINDING);
    GLuint fb = 0;
    GL(glGenFramebuffers)(1, &fb);
    GL(glBindFramebuffer)(fb_target, fb);
    if (layered) {
      auto attach_layer = GL(glFramebufferTextureLayer);
      attach_layer(fb_target, GL_COLOR_ATTACHMENT0, texture, level, static_cast<GLint>(layer));
    } else {
      GL(glFramebufferTexture2D)(fb_target, GL_COLOR_ATTACHMENT0, face_target, texture, level);
    }
    GLenum status = GL(glCheckFramebufferStatus)(fb_target);
    std::string format_name = enum_text(static_cast<uint32_t>(format), "InternalFormat");
    std::optional<RequestError> failed;
    if (status != GL_FRAMEBUFFER_COMPLETE) {
      failed =
          RequestError{"cannot read back a texture of format " + format_name +
                       " through a framebuffer (" + enum_text(status, "FramebufferStatus") + ")"};
    } else {
      try {
        read_pixels(GL_COLOR_ATTACHMENT0, width, height, reply);
      } catch (const RequestError& e) {
        failed = RequestError{e.message + " (the texture is " + format_name + ")"};
      }
    }
    GL(glBindFramebuffer)(fb_target, static_cast<GLuint>(old));
    GL(glDeleteFramebuffers)(1, &fb);
    if (three && base_level != level) {
      with_texture(target, texture, [&] {
        GL(glTexParameteri)(target, GL_TEXTURE_BASE_LEVEL, base_level);
      });
    }
    if (failed) throw *failed;
    reply["internal_format"] = enum_text(static_cast<uint32_t>(format), "InternalFormat");
  }

  void buffer(const json& request, json& reply) {
    need_context();
    read_version();
    auto buffer = static_cast<GLuint>(replay_name(request, ObjectClass::kBuffer, "buffer"));
    if (!es3())
      throw RequestError{"reading a buffer needs glMapBufferRange (ES 3.0); this context is ES " +
                         std::to_string(major_) + "." + std::to_string(minor_)};
    if (GL(glIsBuffer)(buffer) != GL_TRUE)
      throw RequestError{"buffer " + std::to_string(integer_field(request, "name", true)) +
                         " has been deleted or never bound"};
    int64_t offset = integer_field(request, "offset", false);
    if (offset < 0) throw RequestError{"\"offset\" is negative"};
    GLint old = integer(GL_COPY_READ_BUFFER_BINDING);
    GL(glBindBuffer)(GL_COPY_READ_BUFFER, buffer);
    GLint64 size = 0;
    GLint mapped = 0;
    GL(glGetBufferParameteri64v)(GL_COPY_READ_BUFFER, GL_BUFFER_SIZE, &size);
    GL(glGetBufferParameteriv)(GL_COPY_READ_BUFFER, GL_BUFFER_MAPPED, &mapped);
    std::optional<RequestError> failed;
    int64_t length = 0;
    std::string data;
    if (mapped != 0) {
      failed = RequestError{"the buffer is mapped by the app at this call"};
    } else if (offset > size) {
      failed = RequestError{"offset " + std::to_string(offset) + " is past the buffer's " +
                            std::to_string(size) + " bytes"};
    } else {
      length =
          integer_field(request, "size", false, std::min<int64_t>(size - offset, kMaxBufferRead));
      if (length < 0 || length > kMaxBufferRead)
        failed = RequestError{"\"size\" must be 0 to 16 MiB"};
      else if (length > size - offset)
        failed = RequestError{"offset + size (" + std::to_string(offset + length) +
                              ") is past the buffer's " + std::to_string(size) + " bytes"};
    }
    if (!failed && length > 0) {
      clear_errors();
      void* bytes = GL(glMapBufferRange)(GL_COPY_READ_BUFFER, offset, length, GL_MAP_READ_BIT);
      if (bytes == nullptr) {
        failed = RequestError{"glMapBufferRange failed (" +
                              enum_text(GL(glGetError)(), "ErrorCode") + ")"};
      } else {
        data = base64(static_cast<const uint8_t*>(bytes), static_cast<size_t>(length));
        GL(glUnmapBuffer)(GL_COPY_READ_BUFFER);
      }
    }
    GL(glBindBuffer)(GL_COPY_READ_BUFFER, static_cast<GLuint>(old));
    if (failed) throw *failed;
    reply["size"] = length;
    reply["buffer_size"] = size;
    reply["data"] = std::move(data);
  }

  void shader(const json& request, json& reply) {
    need_context();
    read_version();
    // Shaders and programs share one namespace.
    auto name =
        static_cast<GLuint>(replay_name(request, ObjectClass::kProgram, "shader or program"));
    if (GL(glIsShader)(name) == GL_TRUE) {
      Subject at;
      at.object = name;
      read_group(StateGroup::kShader, at, reply);
      GLint length = 0;
      GL(glGetShaderiv)(name, GL_SHADER_SOURCE_LENGTH, &length);
      std::string source(static_cast<size_t>(std::max(length, 1)), '\0');
      GLsizei written = 0;
      GL(glGetShaderSource)(name, static_cast<GLsizei>(source.size()), &written, source.data());
      source.resize(static_cast<size_t>(std::max(written, 0)));
      reply["source"] = std::move(source);
      GL(glGetShaderiv)(name, GL_INFO_LOG_LENGTH, &length);
      std::string log(static_cast<size_t>(std::max(length, 1)), '\0');
      GL(glGetShaderInfoLog)(name, static_cast<GLsizei>(log.size()), &written, log.data());
      log.resize(static_cast<size_t>(std::max(written, 0)));
      reply["info_log"] = std::move(log);
      return;
    }
    if (GL(glIsProgram)(name) != GL_TRUE)
      throw RequestError{"shader or program " +
                         std::to_string(integer_field(request, "name", true)) +
                         " has been deleted"};
    reply["program"] = true;
    Subject at;
    at.object = name;
    std::map<std::string, int64_t> raw;
    read_group(StateGroup::kProgram, at, reply, &raw);
    reply["info_log"] = program_info_log(name);
    GLuint shaders[16] = {};
    GLsizei count = 0;
    GL(glGetAttachedShaders)(name, 16, &count, shaders);
    json list = json::array();
    for (GLsizei i = 0; i < count; ++i) {
      GLint type = 0;
      GL(glGetShaderiv)(shaders[i], GL_SHADER_TYPE, &type);
      json entry = object(ObjectClass::kProgram, shaders[i]);
      entry["type"] = enum_text(static_cast<uint32_t>(type), "ShaderType");
      list.push_back(std::move(entry));
    }
    reply["shaders"] = std::move(list);
  }

  TraceSource& source_;
  Session& session_;
  GlExecutor& executor_;
  Lanes lanes_;
  // The last call replayed (none before the first goto) and its thread.
  std::optional<uint64_t> position_;
  uint32_t thread_ = 0;
  uint32_t context_ = 0;  // the trace's Context.index of the last call
  // The call read past the last goto's target, run by the next goto.
  std::optional<replay::Increment> pending_;
  std::vector<std::string> warnings_;
  uint64_t more_warnings_ = 0;
  int major_ = 2, minor_ = 0;  // the current context's GLES version (per query)
};

}  // namespace

int run_state_worker(const StateWorkerOptions& options) {
  // Replies only on stdout: it becomes a private descriptor, and whatever
  // else writes to descriptor 1 (this library's report lines, the driver's
  // messages) goes to stderr.
  fflush(stdout);
  int reply_fd = dup(STDOUT_FILENO);
  if (reply_fd < 0 || dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
    fprintf(stderr, "%s: cannot set up stdout: %s\n", options.program.c_str(), strerror(errno));
    return 1;
  }
  FILE* replies = fdopen(reply_fd, "w");
  if (replies == nullptr) {
    fprintf(stderr, "%s: cannot set up stdout: %s\n", options.program.c_str(), strerror(errno));
    return 1;
  }
  auto info = std::make_shared<TraceInfo>();
  SourceOptions source_options;
  source_options.blob_memory = options.blob_memory;
  source_options.follow = options.follow;
  TraceSource source(info, source_options);
  std::string error;
  if (!source.open(options.trace, &error)) {
    fprintf(stderr, "%s: %s\n", options.program.c_str(), error.c_str());
    fclose(replies);
    return 1;
  }
  SessionOptions session_options;
  session_options.program = options.program;
  session_options.driver_dir = options.driver_dir;
  Session session(session_options, info);
  if (!session.init(&error)) {
    fprintf(stderr, "%s: %s\n", options.program.c_str(), error.c_str());
    fclose(replies);
    return 1;
  }
  GlExecutor executor(session, ExecutorOptions{});
  {
    Worker worker(source, session, executor);
    std::string line;
    bool quit = false;
    bool too_long = false;
    while (!quit && read_line(stdin, &line, &too_long)) {
      if (line.empty() && !too_long) continue;
      json reply = too_long ? json{{"id", nullptr},
                                   {"ok", false},
                                   {"error", "malformed request: longer than " +
                                                 std::to_string(kMaxRequestLine) + " bytes"}}
                            : worker.handle(line, &quit);
      std::string text = reply.dump(-1, ' ', false, json::error_handler_t::replace);
      fputs(text.c_str(), replies);
      fputc('\n', replies);
      if (fflush(replies) != 0) break;  // the reader went away
    }
  }
  session.shutdown();
  fclose(replies);
  return 0;
}

}  // namespace gltrace::glreplay
