#include "glreplay/args.h"

#define GL_GLES_PROTOTYPES 0
#include <GLES3/gl32.h>

#include <algorithm>
#include <cfloat>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>

#include "gl_loader/call.h"

namespace gltrace::glreplay {

using format::ValueKind;

namespace {

// Outputs larger than this are refused: a hostile trace must not make the
// replay allocate without bound (the generator states the same limit).
constexpr size_t kMaxOutputBytes = size_t{256} << 20;
// Outputs get at least this much scratch: a driver may write a little more
// than the trace saw (another driver's longer strings, a larger pname table).
constexpr size_t kMinOutputBytes = 256;

GLint real_integer(Session& s, GLenum pname) {
  GLint value = 0;
  auto fn = GL_CALL(s.gl(), glGetIntegerv);
  if (fn != nullptr) fn(pname, &value);
  return value;
}

}  // namespace

void* Arena::get(size_t size) {
  size = std::max<size_t>(size, 16);
  if (used_ == blocks_.size()) {
    blocks_.emplace_back();
    sizes_.push_back(0);
  }
  if (sizes_[used_] < size) {
    blocks_[used_] = std::make_unique<uint8_t[]>(size);
    sizes_[used_] = size;
  }
  void* p = blocks_[used_++].get();
  memset(p, 0, size);
  return p;
}

Args::Args(Session& session, const ReplayCall& call, Arena& arena, const Validation* checked)
    : session_(session), call_(call), arena_(arena), checked_(checked) {}

// --- the state validation reads -------------------------------------------------------

int64_t DriverState::integer(uint32_t pname) { return real_integer(session_, pname); }

StateView::Attrib DriverState::attrib(uint32_t index) {
  Attrib a;
  if (index >= kFixedKey) {  // GLES 1: no divisors
    uint32_t slot = index - kFixedKey;
    if (slot >= static_cast<uint32_t>(fixed_arrays::kSlots)) return a;
    const VertexPointer& p = session_.current().fixed[slot];
    a.element_bytes = attrib_element_bytes(p.size, p.type);
    return a;
  }
  auto replayed = static_cast<uint32_t>(session_.attrib_location(index));
  if (replayed >= kMaxAttribs) return a;
  const VertexPointer& p = session_.current().pointers[replayed];
  a.element_bytes = attrib_element_bytes(p.size, p.type);
  auto get = GL_CALL(session_.gl(), glGetVertexAttribiv);
  GLint divisor = 0;
  if (get != nullptr) get(replayed, GL_VERTEX_ATTRIB_ARRAY_DIVISOR, &divisor);
  a.divisor = divisor;
  return a;
}

// GLES 1: the arrays that point at client memory and are enabled (texture
// coordinates: in their own client-active unit, restored after).
std::vector<uint32_t> DriverState::client_fixed_arrays() {
  std::vector<uint32_t> out;
  auto enabled = GL_CALL(session_.gl(), glIsEnabled);
  auto client_active = GL_CALL(session_.gl(), glClientActiveTexture);
  if (enabled == nullptr || client_active == nullptr) return out;
  GLint active = -1;
  const ReplayContext& context = session_.current();
  for (int slot = 0; slot < fixed_arrays::kSlots; ++slot) {
    if (!context.fixed[slot].client) continue;
    fixed_arrays::Array a = fixed_arrays::array_of(slot);
    if (a.array == fixed_arrays::kTexCoord) {
      if (active < 0) active = real_integer(session_, fixed_arrays::kClientActiveTexture);
      client_active(fixed_arrays::kTexture0 + a.unit);
    }
    if (enabled(a.array) != 0) out.push_back(kFixedKey + static_cast<uint32_t>(slot));
  }
  if (active >= 0) client_active(static_cast<GLenum>(active));
  return out;
}

std::vector<uint32_t> DriverState::client_attribs() {
  if (session_.current().client_version == 1) return client_fixed_arrays();
  std::vector<uint32_t> out;
  const ReplayContext& context = session_.current();
  // Most draws read buffers only: then the driver is not asked (its two
  // queries were ~150 instructions of every draw's validation).
  bool any_client = false;
  for (const VertexPointer& p : context.pointers) any_client |= p.client;
  if (!any_client) return out;
  if (real_integer(session_, GL_VERTEX_ARRAY_BINDING) != 0) return out;
  auto get = GL_CALL(session_.gl(), glGetVertexAttribiv);
  if (get == nullptr) return out;
  for (uint32_t i = 0; i < kMaxAttribs; ++i) {
    if (!context.pointers[i].client) continue;
    GLint enabled = 0;
    get(i, GL_VERTEX_ATTRIB_ARRAY_ENABLED, &enabled);
    if (enabled != 0) out.push_back(i);
  }
  return out;
}

uint32_t DriverState::attrib_index(uint32_t recorded) {
  if (recorded >= kFixedKey) return recorded;
  return static_cast<uint32_t>(session_.attrib_location(recorded));
}

std::optional<std::pair<int64_t, int64_t>> DriverState::buffer_index_range(uint64_t offset,
                                                                           int64_t count,
                                                                           uint32_t type) {
  auto map = GL_CALL(session_.gl(), glMapBufferRange);
  auto unmap = GL_CALL(session_.gl(), glUnmapBuffer);
  auto query = GL_CALL(session_.gl(), glGetBufferParameteriv);
  int64_t size = type == GL_UNSIGNED_BYTE ? 1 : type == GL_UNSIGNED_SHORT ? 2 : 4;
  if (map == nullptr || unmap == nullptr || query == nullptr || count <= 0) return std::nullopt;
  GLint buffer_size = 0;
  query(GL_ELEMENT_ARRAY_BUFFER, GL_BUFFER_SIZE, &buffer_size);
  if (offset > static_cast<uint64_t>(buffer_size) ||
      count > (buffer_size - static_cast<int64_t>(offset)) / size)
    return std::nullopt;  // the driver refuses the draw (or reads no further)
  const void* data = map(GL_ELEMENT_ARRAY_BUFFER, static_cast<GLintptr>(offset),
                         static_cast<GLsizeiptr>(count * size), GL_MAP_READ_BIT);
  if (data == nullptr) return std::nullopt;
  int64_t lo = INT64_MAX, hi = -1;
  for (int64_t k = 0; k < count; ++k) {
    uint32_t v = 0;
    memcpy(&v, static_cast<const uint8_t*>(data) + k * size, static_cast<size_t>(size));
    lo = std::min<int64_t>(lo, v);
    hi = std::max<int64_t>(hi, v);
  }
  unmap(GL_ELEMENT_ARRAY_BUFFER);
  return std::pair<int64_t, int64_t>{lo, hi};
}

std::string Args::name_of(size_t i) const {
  const api::FunctionInfo& info = api::kFunctionInfo[call_.function];
  if (info.name != nullptr && i < info.param_count)
    return std::string("argument ") + info.params[i].name;
  return "argument " + std::to_string(i);
}

void Args::fail(const std::string& message) {
  if (error_.empty()) error_ = message;
}

bool Args::missing() {
  fail("the driver has no such function");
  return false;
}

Zero Args::unsupported(size_t i, const char* what) {
  fail(name_of(i) + ": cannot replay a " + what);
  return {};
}

const Value* Args::need(size_t i) {
  if (i < call_.args.size()) return &call_.args[i];
  fail(name_of(i) + " is missing from the trace");
  return nullptr;
}

void Args::not_captured(size_t i, const Value& v) {
  std::string reason = v.size == 0 ? "unknown" : std::string(v.bytes());
  fail(name_of(i) + " was not captured (" + reason + ")");
}

// --- scalars ---------------------------------------------------------------------

uint64_t Args::u(size_t i) {
  const Value* v = need(i);
  if (v == nullptr) return 0;
  switch (v->kind) {
    case ValueKind::kUint:
      return v->uint;
    case ValueKind::kSint:
      return static_cast<uint64_t>(v->sint);
    case ValueKind::kF32:
      return static_cast<uint64_t>(saturate_to_int64(v->f32));
    case ValueKind::kF64:
      return static_cast<uint64_t>(saturate_to_int64(v->f64));
    case ValueKind::kPointer:
      return v->pointer;
    case ValueKind::kNone:
      return 0;
    default:
      fail(name_of(i) + " was recorded as data, not a number");
      return 0;
  }
}

int64_t Args::s(size_t i) {
  const Value* v = need(i);
  if (v != nullptr && v->kind == ValueKind::kSint) return v->sint;
  return static_cast<int64_t>(u(i));
}

float Args::f(size_t i) {
  const Value* v = need(i);
  if (v != nullptr && v->kind == ValueKind::kF32) return v->f32;
  if (v != nullptr && v->kind == ValueKind::kF64) {
    // Beyond float's range: infinite (a plain conversion is undefined).
    double x = v->f64;
    if (std::isfinite(x) && std::fabs(x) > FLT_MAX)
      return x > 0 ? std::numeric_limits<float>::infinity()
                   : -std::numeric_limits<float>::infinity();
    return static_cast<float>(x);
  }
  if (v != nullptr && v->kind == ValueKind::kSint) return static_cast<float>(v->sint);
  return static_cast<float>(u(i));
}

double Args::d(size_t i) {
  const Value* v = need(i);
  if (v != nullptr && v->kind == ValueKind::kF64) return v->f64;
  if (v != nullptr && v->kind == ValueKind::kF32) return v->f32;
  if (v != nullptr && v->kind == ValueKind::kSint) return static_cast<double>(v->sint);
  return static_cast<double>(u(i));
}

uint64_t Args::raw_handle(size_t i) {
  const Value* v = need(i);
  if (v == nullptr) return 0;
  if (v->kind == ValueKind::kPointer || v->kind == ValueKind::kUnknown) return v->pointer;
  return u(i);
}

uint64_t Args::name(size_t i, ObjectClass cls) { return session_.map_name(cls, u(i)); }

int64_t Args::uniform_location(size_t i, int program_index) {
  int64_t location = s(i);
  uint64_t program =
      program_index >= 0 ? u(static_cast<size_t>(program_index)) : session_.current().program;
  return session_.uniform_location(program, location);
}

uint64_t Args::resource_index(size_t i, uint32_t interface, size_t program_index) {
  return session_.resource_index(u(program_index), interface, u(i));
}

int64_t Args::attrib_location(size_t i) { return session_.attrib_location(s(i)); }

// --- input pointers --------------------------------------------------------------

const char* Args::text(size_t i) {
  const Value* v = need(i);
  if (v == nullptr) return nullptr;
  switch (v->kind) {
    case ValueKind::kText:
    case ValueKind::kData:
      return static_cast<const char*>(v->data);
    case ValueKind::kPointer:
      return reinterpret_cast<const char*>(static_cast<uintptr_t>(v->pointer));
    case ValueKind::kUnknown:
      not_captured(i, *v);
      return nullptr;
    default:
      fail(name_of(i) + ": a string was expected");
      return nullptr;
  }
}

const char* const* Args::strings(size_t i) {
  const Value* v = need(i);
  if (v == nullptr) return nullptr;
  if (v->kind == ValueKind::kPointer && v->pointer == 0) return nullptr;
  if (v->kind == ValueKind::kUnknown) {
    not_captured(i, *v);
    return nullptr;
  }
  if (v->kind != ValueKind::kStrings) {
    fail(name_of(i) + ": strings were expected");
    return nullptr;
  }
  std::span<const std::string_view> in = v->strings();
  auto** out = static_cast<const char**>(arena_.get(sizeof(const char*) * (in.size() + 1)));
  for (size_t k = 0; k < in.size(); ++k) out[k] = in[k].data();
  return out;
}

const void* const* Args::index_lists(size_t i) {
  const Value* v = need(i);
  if (v == nullptr) return nullptr;
  if (v->kind == ValueKind::kStrings) {
    std::span<const std::string_view> in = v->strings();
    auto** out = static_cast<const void**>(arena_.get(sizeof(void*) * (in.size() + 1)));
    for (size_t k = 0; k < in.size(); ++k) out[k] = in[k].data();
    return out;
  }
  if (v->kind == ValueKind::kArray) {
    std::vector<uint64_t> offsets = recorded_handles(i);
    auto** out = static_cast<const void**>(arena_.get(sizeof(void*) * (offsets.size() + 1)));
    for (size_t k = 0; k < offsets.size(); ++k)
      out[k] = reinterpret_cast<const void*>(static_cast<uintptr_t>(offsets[k]));
    return out;
  }
  if (v->kind == ValueKind::kPointer && v->pointer == 0) return nullptr;
  if (v->kind == ValueKind::kUnknown) {
    not_captured(i, *v);
    return nullptr;
  }
  fail(name_of(i) + ": index arrays were expected");
  return nullptr;
}

const void* Args::bytes(size_t i) {
  const Value* v = need(i);
  if (v == nullptr) return nullptr;
  switch (v->kind) {
    case ValueKind::kData:
    case ValueKind::kText:
      return v->data;
    case ValueKind::kPointer:
      // An offset into a bound buffer (or null): the same number works here.
      return reinterpret_cast<const void*>(static_cast<uintptr_t>(v->pointer));
    case ValueKind::kNone:
      return nullptr;
    case ValueKind::kUnknown:
      not_captured(i, *v);
      return nullptr;
    default:
      fail(name_of(i) + ": data was expected");
      return nullptr;
  }
}

const void* Args::bound_offset(size_t i, uint32_t binding) {
  const Value* v = need(i);
  if (v != nullptr && v->kind == ValueKind::kUnknown && real_integer(session_, binding) != 0)
    return reinterpret_cast<const void*>(static_cast<uintptr_t>(v->pointer));
  return bytes(i);
}

size_t Args::element_count(size_t i, size_t element_size) const {
  const Value* v = value(i);
  if (v == nullptr) return 0;
  if (v->kind == ValueKind::kArray) return v->size;
  if (v->kind == ValueKind::kData && element_size != 0) return v->size / element_size;
  return 0;
}

void Args::mark_deleted(size_t i, ObjectClass cls) {
  const Value* v = value(i);
  if (v == nullptr) return;
  if (v->kind == ValueKind::kArray || v->kind == ValueKind::kData) {
    for (uint64_t recorded : recorded_handles(i)) session_.mark_deleted(cls, recorded);
  } else {
    session_.mark_deleted(cls, raw_handle(i));
  }
}

std::vector<uint64_t> Args::recorded_handles(size_t i) const {
  std::vector<uint64_t> out;
  const Value* v = value(i);
  if (v == nullptr) return out;
  if (v->kind == ValueKind::kArray) {
    for (uint64_t u : v->uints()) out.push_back(u);
    for (int64_t s : v->sints()) out.push_back(static_cast<uint64_t>(s));
  } else if (v->kind == ValueKind::kData) {
    // Raw elements: 8-byte handles, or 4-byte GL names.
    std::string_view b = v->bytes();
    bool names = api::kFunctionInfo[call_.function].api == api::Api::kGles;
    size_t size = names ? 4 : 8;
    for (size_t k = 0; k + size <= b.size(); k += size) {
      uint64_t e = 0;
      memcpy(&e, b.data() + k, size);
      out.push_back(e);
    }
  }
  return out;
}

const void* Args::typed_array(size_t i, size_t element_size, Kind kind) {
  const Value* v = need(i);
  if (v == nullptr) return nullptr;
  switch (v->kind) {
    case ValueKind::kArray: {
      // Floats the parameter takes as floats (glUniform*fv, matrices): the
      // recorded ones as they are, not copied one by one (145 instructions
      // of a uniform mix's call).
      if (v->elements == Value::Elements::kFloat && kind == Kind::kFloat && element_size == 4)
        return v->floats().data();
      size_t n = element_count(i, element_size);
      auto* out = static_cast<uint8_t*>(arena_.get(n * element_size));
      for (size_t k = 0; k < n; ++k) {
        uint8_t* e = out + k * element_size;
        // Elements come back as the kind the recorder wrote (by the C type);
        // each is stored in the parameter's type.
        auto put_int = [&](uint64_t bits) { memcpy(e, &bits, std::min<size_t>(element_size, 8)); };
        auto put_float = [&](double x) {
          if (kind == Kind::kFloat) {
            auto f = static_cast<float>(x);
            memcpy(e, &f, 4);
          } else if (kind == Kind::kDouble) {
            memcpy(e, &x, 8);
          } else {
            put_int(static_cast<uint64_t>(saturate_to_int64(x)));
          }
        };
        bool to_float = kind == Kind::kFloat || kind == Kind::kDouble;
        switch (v->elements) {
          case Value::Elements::kFloat:
            put_float(v->floats()[k]);
            break;
          case Value::Elements::kSint: {
            int64_t x = v->sints()[k];
            to_float ? put_float(static_cast<double>(x)) : put_int(static_cast<uint64_t>(x));
            break;
          }
          case Value::Elements::kUint: {
            uint64_t x = v->uints()[k];
            to_float ? put_float(static_cast<double>(x)) : put_int(x);
            break;
          }
        }
      }
      return out;
    }
    case ValueKind::kData: {
      std::string_view b = v->bytes();
      // Raw elements; copied when the string's buffer is not aligned for them.
      if (reinterpret_cast<uintptr_t>(b.data()) % std::min<size_t>(element_size, 8) == 0)
        return b.data();
      void* out = arena_.get(b.size());
      memcpy(out, b.data(), b.size());
      return out;
    }
    case ValueKind::kPointer:
      return reinterpret_cast<const void*>(static_cast<uintptr_t>(v->pointer));
    case ValueKind::kNone:
      return nullptr;
    case ValueKind::kUnknown:
      not_captured(i, *v);
      return nullptr;
    default:
      fail(name_of(i) + ": an array was expected");
      return nullptr;
  }
}

void* Args::output(size_t i, size_t element_size, Kind kind, int64_t min_count) {
  const Value* v = need(i);
  if (v == nullptr) return nullptr;
  int64_t checked = checked_ != nullptr ? checked_->output(i) : 0;
  if (checked == Validation::kOffset)  // into a bound buffer (glReadPixels into a PBO)
    return reinterpret_cast<void*>(static_cast<uintptr_t>(v->pointer));
  size_t recorded = 0;
  switch (v->kind) {
    case ValueKind::kArray:
      recorded = element_count(i, element_size) * element_size;
      break;
    case ValueKind::kData:
      recorded = v->size;
      break;
    case ValueKind::kText:
      recorded = v->size + 1;
      break;
    case ValueKind::kStrings:
      for (std::string_view s : v->strings()) recorded += s.size() + 1;
      break;
    default:
      break;
  }
  if (min_count < 0) min_count = 0;
  if (static_cast<uint64_t>(min_count) > kMaxOutputBytes / element_size) {
    fail(name_of(i) + ": an output of " + std::to_string(min_count) + " elements is too large");
    return nullptr;
  }
  size_t written = std::max({recorded, static_cast<size_t>(min_count) * element_size,
                             static_cast<size_t>(std::max<int64_t>(checked, 0))});
  void* scratch = arena_.get(std::max(written, kMinOutputBytes));
  if (session_.options().outcomes && scratch != nullptr)
    outputs_.push_back(
        {i, scratch, recorded != 0 ? recorded : written, static_cast<uint8_t>(element_size), kind});
  return scratch;
}

// --- definitions -----------------------------------------------------------------

void Args::check_result(uint64_t replayed) {
  if (!call_.has_ret || call_.snapshot) return;
  uint64_t recorded = ret_u();
  if (recorded != replayed) session_.note_divergent_result(recorded, replayed, true, "");
}

void Args::check_output(size_t i, uint64_t replayed) {
  const Value* v = value(i);
  if (call_.snapshot || v == nullptr || v->kind != ValueKind::kArray) return;
  std::optional<uint64_t> recorded;
  if (v->elements == Value::Elements::kSint && !v->sints().empty())
    recorded = static_cast<uint64_t>(v->sints()[0]);
  else if (v->elements == Value::Elements::kUint && !v->uints().empty())
    recorded = v->uints()[0];
  if (!recorded || *recorded == replayed) return;
  // A shader or program status: what the driver said of it.
  auto shader_log = GL_CALL(session_.gl(), glGetShaderInfoLog);
  auto program_log = GL_CALL(session_.gl(), glGetProgramInfoLog);
  char text[512] = {};
  auto object = static_cast<GLuint>(session_.map_name(ObjectClass::kProgram, u(0)));
  if (call_.function == api::kFn_glGetShaderiv && shader_log != nullptr)
    shader_log(object, sizeof text, nullptr, text);
  else if (call_.function == api::kFn_glGetProgramiv && program_log != nullptr)
    program_log(object, sizeof text, nullptr, text);
  std::string detail = text;
  while (!detail.empty() && (detail.back() == '\n' || detail.back() == ' ')) detail.pop_back();
  session_.note_divergent_result(*recorded, replayed, false, detail);
}

void Args::note_pixels(int64_t width, int64_t height, uint32_t format, uint32_t type) {
  if (session_.options().outcomes && format == GL_RGBA && type == GL_UNSIGNED_BYTE && width > 0 &&
      height > 0)
    rgba8_pixels_ = {static_cast<uint32_t>(width), static_cast<uint32_t>(height)};
}

uint64_t Args::ret_u() const {
  const Value& v = call_.ret;
  switch (v.kind) {
    case ValueKind::kUint:
      return v.uint;
    case ValueKind::kSint:
      return static_cast<uint64_t>(v.sint);
    case ValueKind::kPointer:
      return v.pointer;
    default:
      return 0;
  }
}

int64_t Args::ret_s() const {
  return call_.ret.kind == ValueKind::kSint ? call_.ret.sint : static_cast<int64_t>(ret_u());
}

void Args::define_name(ObjectClass cls, uint64_t replayed) {
  session_.define_name(cls, ret_u(), replayed);
}

void Args::define_uniform_location(size_t program_index, int64_t replayed) {
  int64_t recorded = ret_s();
  if (recorded >= 0) session_.define_uniform_location(u(program_index), recorded, replayed);
}

void Args::define_resource_index(size_t program_index, uint32_t interface, uint64_t replayed) {
  uint64_t recorded = ret_u();
  if (recorded != GL_INVALID_INDEX)
    session_.define_resource_index(u(program_index), interface, recorded, replayed);
}

void Args::define_attrib_location(size_t program_index, int64_t replayed) {
  int64_t recorded = ret_s();
  if (recorded >= 0) session_.define_attrib_location(u(program_index), recorded, replayed);
}

void Args::use_program(size_t i) { session_.current().program = u(i); }

void Args::forget_program(size_t i) { session_.forget_program(u(i)); }

void Args::remember_linked_shaders(size_t i, uint32_t replayed) {
  if (!session_.has_current()) return;
  session_.current().group->linked_shaders[u(i)] =
      glstate::read_linked_shaders(glstate::GlFunctions::of(session_.gl()), replayed);
}

void Args::shadow_compressed_upload(const glstate::CompressedUpload& upload) {
  if (!session_.has_current()) return;
  session_.current().group->compressed.note_upload(glstate::GlFunctions::of(session_.gl()), nullptr,
                                                   upload);
}

// --- client memory ------------------------------------------------------------------

const void* Args::vertex_pointer(size_t i, uint32_t index, int32_t size, uint32_t type,
                                 uint8_t normalized, int32_t stride, bool integer) {
  (void)stride;
  const void* pointer = bytes(i);
  if (index >= kMaxAttribs) return pointer;
  // Only VAO 0 with no array buffer reads client memory: the recorded value
  // is then an address in the traced process, meaningless here.
  if (real_integer(session_, GL_VERTEX_ARRAY_BINDING) != 0) return pointer;
  VertexPointer& p = session_.current().pointers[index];
  // NULL too: the driver would read from address 0 on.
  p.client = real_integer(session_, GL_ARRAY_BUFFER_BINDING) == 0;
  if (!p.client) return pointer;
  p.size = size;
  p.type = type;
  p.normalized = normalized != 0;
  p.integer = integer;
  p.data.reset();
  return nullptr;
}

const void* Args::fixed_pointer(size_t i, uint32_t array, int32_t size, uint32_t type,
                                int32_t stride) {
  (void)stride;
  const void* pointer = bytes(i);
  uint32_t unit = 0;
  if (array == fixed_arrays::kTexCoord)
    unit = static_cast<uint32_t>(real_integer(session_, fixed_arrays::kClientActiveTexture)) -
           fixed_arrays::kTexture0;
  int slot = fixed_arrays::slot(array, unit);
  bool client = real_integer(session_, GL_ARRAY_BUFFER_BINDING) == 0;
  if (slot >= 0) {
    VertexPointer& p = session_.current().fixed[slot];
    p.client = client;
    p.size = size;
    p.type = type;
    p.data.reset();
  }
  // A client address of the traced process: NULL until a draw sets the copy.
  return client ? nullptr : pointer;
}

void Args::set_fixed_array(const ClientArray& a, const void* address, int32_t* active_unit) {
  int slot = fixed_arrays::slot(a.array, a.index);
  if (slot < 0) {
    fail("the trace's client array of " + client_array_name(a) + ": no GLES 1 array");
    return;
  }
  VertexPointer& p = session_.current().fixed[slot];
  p.data = a.data;
  auto stride = static_cast<GLsizei>(a.stride);
  auto set = [&](auto fn) {
    if (fn == nullptr)
      missing();
    else
      fn(p.size, p.type, stride, address);
  };
  switch (a.array) {
    case fixed_arrays::kVertex:
      set(GL_CALL(session_.gl(), glVertexPointer));
      break;
    case fixed_arrays::kColor:
      set(GL_CALL(session_.gl(), glColorPointer));
      break;
    case fixed_arrays::kNormal: {
      auto normal = GL_CALL(session_.gl(), glNormalPointer);
      if (normal == nullptr) return (void)missing();
      normal(p.type, stride, address);
      break;
    }
    default: {  // kTexCoord: in its unit, the app's restored after the draw's arrays
      auto client_active = GL_CALL(session_.gl(), glClientActiveTexture);
      if (client_active == nullptr) return (void)missing();
      if (*active_unit < 0)
        *active_unit = real_integer(session_, fixed_arrays::kClientActiveTexture);
      client_active(fixed_arrays::kTexture0 + a.index);
      set(GL_CALL(session_.gl(), glTexCoordPointer));
      break;
    }
  }
}

bool Args::set_client_arrays() {
  if (call_.client_arrays.empty()) return true;
  auto pointer = GL_CALL(session_.gl(), glVertexAttribPointer);
  auto ipointer = GL_CALL(session_.gl(), glVertexAttribIPointer);
  auto bind = GL_CALL(session_.gl(), glBindBuffer);
  if (bind == nullptr) return missing();
  GLint array_buffer = real_integer(session_, GL_ARRAY_BUFFER_BINDING);
  if (array_buffer != 0) bind(GL_ARRAY_BUFFER, 0);
  ReplayContext& context = session_.current();
  GLint active_unit = -1;  // GLES 1: the client-active texture unit, once changed
  for (const ClientArray& a : call_.client_arrays) {
    if (a.data == nullptr) {
      fail("the client array of " + client_array_name(a) + " is missing from the trace");
      continue;
    }
    // Vertex `first` is at the copy's start: vertex 0 would be before it.
    auto base = reinterpret_cast<uintptr_t>(a.data->data()) - a.first * a.stride;
    const void* address = reinterpret_cast<const void*>(base);
    if (a.array != 0) {
      set_fixed_array(a, address, &active_unit);
      continue;
    }
    auto index = static_cast<uint32_t>(session_.attrib_location(a.index));
    if (index >= kMaxAttribs) continue;
    if (pointer == nullptr) return missing();
    VertexPointer& p = context.pointers[index];
    p.data = a.data;
    auto stride = static_cast<GLsizei>(a.stride);
    if (p.integer && ipointer != nullptr)
      ipointer(index, p.size, p.type, stride, address);
    else
      pointer(index, p.size, p.type, p.normalized ? GL_TRUE : GL_FALSE, stride, address);
  }
  if (active_unit >= 0) {
    auto client_active = GL_CALL(session_.gl(), glClientActiveTexture);
    if (client_active != nullptr) client_active(static_cast<GLenum>(active_unit));
  }
  if (array_buffer != 0) bind(GL_ARRAY_BUFFER, static_cast<GLuint>(array_buffer));
  return ok();
}

// --- mapped buffers -------------------------------------------------------------------

void Args::remember_mapping(uint32_t target, uint32_t buffer, void* pointer, int64_t offset,
                            int64_t length) {
  std::vector<Mapping>& mappings = session_.current().mappings;
  std::erase_if(mappings,
                [&](const Mapping& m) { return m.target == target && m.buffer == buffer; });
  if (pointer == nullptr) return;
  if (length < 0) {  // glMapBufferOES, glMapBuffer, glMapNamedBuffer: the whole buffer
    GLint size = 0;
    if (target != 0) {
      auto query = GL_CALL(session_.gl(), glGetBufferParameteriv);
      if (query != nullptr) query(target, GL_BUFFER_SIZE, &size);
    } else {
      auto query = GL_CALL(session_.gl(), glGetNamedBufferParameteriv);
      if (query != nullptr)
        query(static_cast<GLuint>(session_.map_name(ObjectClass::kBuffer, buffer)), GL_BUFFER_SIZE,
              &size);
    }
    length = size;
  }
  mappings.push_back({target, buffer, static_cast<uint8_t*>(pointer), offset, length});
}

void Args::write_mapped_buffer(uint32_t target, uint32_t buffer) {
  for (const BufferWrite& w : call_.buffer_writes) {
    if (w.target != target || w.buffer != buffer) continue;
    if (w.data == nullptr) {
      fail("the data written to a mapped buffer is missing from the trace");
      continue;
    }
    const Mapping* mapping = nullptr;
    for (const Mapping& m : session_.current().mappings)
      if (m.target == target && m.buffer == buffer) mapping = &m;
    auto begin = static_cast<int64_t>(w.offset);
    auto size = static_cast<int64_t>(w.data->size());
    if (mapping == nullptr || begin < mapping->offset ||
        begin + size > mapping->offset + mapping->length) {
      fail("the replay has no mapping of the buffer range the app wrote");
      continue;
    }
    memcpy(mapping->pointer + (begin - mapping->offset), w.data->data(), w.data->size());
  }
}

void Args::forget_mapping(uint32_t target, uint32_t buffer) {
  std::erase_if(session_.current().mappings,
                [&](const Mapping& m) { return m.target == target && m.buffer == buffer; });
}

}  // namespace gltrace::glreplay
