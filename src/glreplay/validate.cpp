#include "glreplay/validate.h"

#define GL_GLES_PROTOTYPES 0
#include <GLES2/gl2.h>
#include <GLES2/gl2ext.h>
#include <GLES3/gl32.h>

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstring>

#include "common/image_size.h"
#include "common/param_sizes.h"
#include "common/pname_count.h"
#include "common/vertex_format.h"
#include "gltrace/api/enums.h"
#include "gltrace/api/functions.h"
#include "gltrace/api/pfn.h"

namespace gltrace::glreplay {

using format::ValueKind;

namespace {

// Outputs larger than this are refused: a hostile trace must not make the
// replay allocate without bound.
constexpr int64_t kMaxOutputBytes = int64_t{256} << 20;

// a * b, saturating at INT64_MAX (both >= 0).
int64_t mul(int64_t a, int64_t b) {
  int64_t r;
  return __builtin_mul_overflow(a, b, &r) ? INT64_MAX : r;
}

// A registry length expression's value: arithmetic saturates (a hostile
// trace's counts must not overflow), a negative operand stays negative (GL
// refuses negative counts before it reads anything).
struct Len {
  int64_t v;
  operator int64_t() const { return v; }  // NOLINT(google-explicit-constructor)
};
[[maybe_unused]] Len operator*(Len a, Len b) { return {a.v < 0 || b.v < 0 ? -1 : mul(a.v, b.v)}; }
[[maybe_unused]] Len operator+(Len a, Len b) {
  int64_t r;
  return {a.v < 0 || b.v < 0 ? -1 : __builtin_add_overflow(a.v, b.v, &r) ? INT64_MAX : r};
}
[[maybe_unused]] Len operator-(Len a, Len b) {
  return {a.v < 0 || b.v < 0 || a.v < b.v ? -1 : a.v - b.v};
}
[[maybe_unused]] Len operator/(Len a, Len b) { return {a.v < 0 || b.v <= 0 ? -1 : a.v / b.v}; }

std::string hex(uint64_t v) {
  char text[24];
  snprintf(text, sizeof text, "0x%" PRIx64, v);
  return text;
}

const char* binding_name(uint32_t binding) {
  switch (binding) {
    case GL_PIXEL_UNPACK_BUFFER_BINDING:
      return "GL_PIXEL_UNPACK_BUFFER";
    case GL_PIXEL_PACK_BUFFER_BINDING:
      return "GL_PIXEL_PACK_BUFFER";
    case GL_ELEMENT_ARRAY_BUFFER_BINDING:
      return "GL_ELEMENT_ARRAY_BUFFER";
    case GL_DRAW_INDIRECT_BUFFER_BINDING:
      return "GL_DRAW_INDIRECT_BUFFER";
    case GL_ARRAY_BUFFER_BINDING:
      return "GL_ARRAY_BUFFER";
    default:
      return "a buffer";
  }
}

}  // namespace

#include "gltrace/api/validate_rules.inc"

Validator::Validator(const ReplayCall& call, StateView& state, Validation* out)
    : call_(call), state_(state), out_(out) {
  out_->error.clear();
  out_->uncaptured.clear();
  // Sized by the few rules that set an output (output(i) reads 0 past it):
  // assigning every call's zeros was a third of a common call's validation.
  out_->output_bytes.clear();
}

void Validator::set_output(size_t i, int64_t bytes) {
  if (out_->output_bytes.size() <= i) out_->output_bytes.resize(call_.args.size(), 0);
  out_->output_bytes[i] = bytes;
}

void Validator::not_captured(size_t i, const Value& v) {
  if (out_->uncaptured.empty())
    out_->uncaptured = name_of(i) + " was not captured (" +
                       (v.size == 0 ? std::string("unknown") : std::string(v.bytes())) + ")";
}

std::string Validator::name_of(size_t i) const {
  const api::FunctionInfo& info = api::kFunctionInfo[call_.function];
  if (info.name != nullptr && i < info.param_count)
    return std::string("argument ") + info.params[i].name;
  return "argument " + std::to_string(i);
}

void Validator::fail(const std::string& message) {
  if (out_->error.empty()) out_->error = message;
}

const Value* Validator::arg(size_t i) {
  if (i < call_.args.size()) return &call_.args[i];
  fail(name_of(i) + " is missing from the trace");
  return nullptr;
}

int64_t Validator::s(size_t i) const {
  if (i >= call_.args.size()) return 0;
  const Value& v = call_.args[i];
  switch (v.kind) {
    case ValueKind::kSint:
      return v.sint;
    case ValueKind::kUint:
    case ValueKind::kPointer:
      return static_cast<int64_t>(v.uint);
    case ValueKind::kF32:
      return saturate_to_int64(v.f32);
    case ValueKind::kF64:
      return saturate_to_int64(v.f64);
    default:
      return 0;
  }
}

uint64_t Validator::u(size_t i) const { return static_cast<uint64_t>(s(i)); }

bool Validator::bound(uint32_t binding) { return binding != 0 && state_.integer(binding) != 0; }

void Validator::input(size_t i, size_t element_size, int64_t count, uint32_t binding,
                      bool null_ok) {
  const Value* v = arg(i);
  if (v == nullptr) return;
  int64_t need = count < 0 ? -1 : mul(count, static_cast<int64_t>(element_size));
  switch (v->kind) {
    case ValueKind::kData:
    case ValueKind::kText:
    case ValueKind::kArray: {
      if (bound(binding)) {
        fail(name_of(i) + " holds data, but a buffer is bound to " + binding_name(binding) +
             ": the driver would take its address for an offset");
        return;
      }
      int64_t have =
          static_cast<int64_t>(v->kind == ValueKind::kArray ? v->size * element_size : v->size);
      if (need < 0)
        fail(name_of(i) + ": the size the driver reads cannot be computed from the call");
      else if (have < need)
        fail(name_of(i) + ": the trace holds " + std::to_string(have) +
             " bytes, the driver reads " + std::to_string(need));
      return;
    }
    case ValueKind::kNone:
    case ValueKind::kPointer: {
      uint64_t pointer = v->kind == ValueKind::kPointer ? v->pointer : 0;
      if (pointer == 0) {
        if (!null_ok && need != 0 && !bound(binding))
          fail(name_of(i) + " is NULL, but the driver reads " +
               (need < 0 ? std::string("from it") : std::to_string(need) + " bytes"));
        return;
      }
      if (!bound(binding))
        fail(name_of(i) + " is a pointer value (" + hex(pointer) + ") without its data" +
             (binding != 0 ? std::string(", and no buffer is bound to ") + binding_name(binding)
                           : std::string()));
      return;
    }
    case ValueKind::kUnknown:
      // Not captured: Args refuses the call, unless it takes the address
      // for an offset into a bound buffer.
      if (!bound(binding)) not_captured(i, *v);
      return;
    default:
      fail(name_of(i) + ": data was expected");
      return;
  }
}

void Validator::text(size_t i, int64_t length, bool null_ok) {
  const Value* v = arg(i);
  if (v == nullptr) return;
  if (v->kind == ValueKind::kText || v->kind == ValueKind::kData) {
    // Both end in a NUL the source adds; `length` chars must be there.
    if (length >= 0 && static_cast<int64_t>(v->size) < length)
      fail(name_of(i) + ": the trace holds " + std::to_string(v->size) +
           " chars, the driver reads " + std::to_string(length));
    return;
  }
  input(i, 1, length < 0 ? 1 : length, 0, null_ok);
}

void Validator::strings(size_t i, int64_t count, int length_index) {
  const Value* v = arg(i);
  if (v == nullptr) return;
  if (v->kind != ValueKind::kStrings) {
    input(i, sizeof(void*), count, 0, false);
    return;
  }
  std::span<const std::string_view> list = v->strings();
  if (count < 0 || static_cast<int64_t>(list.size()) < count) {
    fail(name_of(i) + ": the trace holds " + std::to_string(list.size()) +
         " strings, the driver reads " + std::to_string(count));
    return;
  }
  if (length_index < 0) return;
  const Value* lengths = arg(static_cast<size_t>(length_index));
  if (lengths == nullptr || lengths->kind != ValueKind::kArray) return;  // NUL-terminated
  input(static_cast<size_t>(length_index), sizeof(GLint), count, 0, true);
  for (int64_t k = 0; k < count && k < static_cast<int64_t>(lengths->size); ++k) {
    int64_t length = lengths->elements == Value::Elements::kSint ? lengths->sints()[k]
                     : lengths->elements == Value::Elements::kUint
                         ? static_cast<int64_t>(lengths->uints()[k])
                         : -1;
    // GLint lengths: what the driver sees is the low 32 bits.
    length = static_cast<int32_t>(length);
    if (length > static_cast<int64_t>(list[k].size())) {
      fail(name_of(i) + ": string " + std::to_string(k) + " holds " +
           std::to_string(list[k].size()) + " chars, its length says " + std::to_string(length));
      return;
    }
  }
}

void Validator::attrib_list(size_t i, size_t element_size, int32_t none) {
  const Value* v = arg(i);
  if (v == nullptr) return;
  std::vector<int64_t> keys;
  if (v->kind == ValueKind::kArray) {
    for (int64_t x : v->sints()) keys.push_back(x);
    for (uint64_t x : v->uints()) keys.push_back(static_cast<int64_t>(x));
  } else if (v->kind == ValueKind::kData && (element_size == 4 || element_size == 8)) {
    for (size_t k = 0; k + element_size <= v->size; k += element_size) {
      int64_t x = 0;
      if (element_size == 4) {
        int32_t e;
        memcpy(&e, static_cast<const uint8_t*>(v->data) + k, 4);
        x = e;
      } else {
        memcpy(&x, static_cast<const uint8_t*>(v->data) + k, 8);
      }
      keys.push_back(x);
    }
  } else {
    input(i, element_size, 1, 0, true);  // NULL passes; a bare address does not
    return;
  }
  for (size_t k = 0; k < keys.size(); k += 2)
    if (static_cast<int32_t>(keys[k]) == none) return;
  fail(name_of(i) + ": the attribute list has no " + (none == 0 ? "GL_NONE" : "EGL_NONE") + " key");
}

void Validator::unsized(size_t i) {
  const Value* v = arg(i);
  if (v == nullptr) return;
  if (v->kind == ValueKind::kUnknown) return not_captured(i, *v);
  if (v->kind == ValueKind::kNone || (v->kind == ValueKind::kPointer && v->pointer == 0)) return;
  fail(name_of(i) + ": no rule says how much the driver reads from it");
}

void Validator::output(size_t i, size_t element_size, int64_t count, uint32_t binding) {
  const Value* v = arg(i);
  if (v == nullptr) return;
  if (v->kind == ValueKind::kPointer && bound(binding)) {
    set_output(i, Validation::kOffset);
    return;
  }
  if (count < 0) return;
  int64_t bytes = mul(count, static_cast<int64_t>(element_size));
  if (bytes > kMaxOutputBytes) {
    fail(name_of(i) + ": an output of " + std::to_string(bytes) + " bytes is too large");
    return;
  }
  set_output(i, bytes);
}

void Validator::indirect(size_t i, int64_t bytes) {
  const Value* v = arg(i);
  if (v == nullptr) return;
  // GL ES reads the command from the bound buffer only: data is refused too.
  if (!bound(GL_DRAW_INDIRECT_BUFFER_BINDING))
    fail(name_of(i) + ": no buffer is bound to GL_DRAW_INDIRECT_BUFFER");
  else if (v->kind != ValueKind::kPointer && v->kind != ValueKind::kUnknown)
    fail(name_of(i) + " holds data, but the driver reads " + std::to_string(bytes) +
         " bytes from the bound GL_DRAW_INDIRECT_BUFFER at an offset");
}

void Validator::index_lists(size_t i, int counts_i, int type_i, int n_i) {
  const Value* v = arg(i);
  const Value* counts = arg(static_cast<size_t>(counts_i));
  if (v == nullptr || counts == nullptr) return;
  int64_t n = as<GLsizei>(static_cast<size_t>(n_i));
  int64_t size = vertex_format::index_bytes(static_cast<uint32_t>(u(static_cast<size_t>(type_i))));
  if (n <= 0 || size == 0) return;  // the driver reads nothing
  if (v->kind == ValueKind::kUnknown) return not_captured(i, *v);
  if (!state_.client_attribs().empty()) {
    fail(name_of(i) + ": the draws read client memory, which the trace holds no arrays of");
    return;
  }
  input(static_cast<size_t>(counts_i), sizeof(GLsizei), n, 0, false);
  if (!ok()) return;
  if (v->kind == ValueKind::kArray) {
    if (!bound(GL_ELEMENT_ARRAY_BUFFER_BINDING))
      fail(name_of(i) + " holds offsets, but no buffer is bound to GL_ELEMENT_ARRAY_BUFFER");
    else if (static_cast<int64_t>(v->size) < n)
      fail(name_of(i) + ": the trace holds " + std::to_string(v->size) +
           " offsets, the driver reads " + std::to_string(n));
    return;
  }
  if (v->kind != ValueKind::kStrings || counts->kind != ValueKind::kArray) {
    input(i, sizeof(void*), n, GL_ELEMENT_ARRAY_BUFFER_BINDING, false);  // reports what it holds
    if (ok()) fail(name_of(i) + ": index arrays were expected");
    return;
  }
  if (bound(GL_ELEMENT_ARRAY_BUFFER_BINDING)) {
    fail(name_of(i) +
         " holds index arrays, but a buffer is bound to GL_ELEMENT_ARRAY_BUFFER: "
         "the driver would take their addresses for offsets");
    return;
  }
  std::span<const std::string_view> lists = v->strings();
  if (static_cast<int64_t>(lists.size()) < n || static_cast<int64_t>(counts->size) < n) {
    fail(name_of(i) + ": the trace holds " + std::to_string(lists.size()) +
         " index arrays, the driver reads " + std::to_string(n));
    return;
  }
  for (int64_t k = 0; k < n; ++k) {
    int64_t count = counts->elements == Value::Elements::kSint ? counts->sints()[k]
                    : counts->elements == Value::Elements::kUint
                        ? static_cast<int64_t>(counts->uints()[k])
                        : 0;
    count = static_cast<GLsizei>(count);  // what the driver sees
    if (count > 0 && static_cast<int64_t>(lists[k].size()) < count * size) {
      fail(name_of(i) + ": index array " + std::to_string(k) + " holds " +
           std::to_string(lists[k].size()) + " bytes, the driver reads " +
           std::to_string(count * size));
      return;
    }
  }
}

void Validator::draw(int first, int count_i, int type_i, int indices_i, int instances_i,
                     int base_vertex_i) {
  // first, count, instances and the base vertex are GLint/GLsizei: what the
  // driver sees of them is their low 32 bits.
  int64_t count = as<GLsizei>(static_cast<size_t>(count_i));
  int64_t instances = instances_i >= 0 ? as<GLsizei>(static_cast<size_t>(instances_i)) : 1;
  if (count <= 0 || instances <= 0) return;  // the driver reads nothing
  if (!all_client_arrays_recorded()) return;
  int64_t lo = 0, hi = -1;
  if (indices_i < 0) {
    lo = as<GLint>(static_cast<size_t>(first));
    if (lo < 0) return;  // GL_INVALID_VALUE
    hi = lo + count - 1;
  } else {
    auto type = static_cast<uint32_t>(u(type_i));
    int64_t size = vertex_format::index_bytes(type);
    if (size == 0) return;  // GL_INVALID_ENUM: nothing read
    auto i = static_cast<size_t>(indices_i);
    const Value* v = arg(i);
    if (v == nullptr) return;
    if (bound(GL_ELEMENT_ARRAY_BUFFER_BINDING)) {
      if (v->kind != ValueKind::kPointer && v->kind != ValueKind::kUnknown) {
        input(i, 1, 0, GL_ELEMENT_ARRAY_BUFFER_BINDING, false);  // reports the data
        return;
      }
      if (call_.client_arrays.empty()) return;
      auto range = state_.buffer_index_range(v->pointer, count, type);
      if (!range) {
        fail(name_of(i) +
             ": the indices in the element array buffer cannot be read to check "
             "the client arrays");
        return;
      }
      std::tie(lo, hi) = *range;
      if (hi < lo) return;  // the state cannot tell (--check)
    } else {
      input(i, static_cast<size_t>(size), count, 0, false);
      if (!ok() || v->kind != ValueKind::kData) {
        if (ok()) fail(name_of(i) + ": client indices were not captured");
        return;
      }
      lo = INT64_MAX;
      const auto* bytes = static_cast<const uint8_t*>(v->data);
      for (int64_t k = 0; k < count; ++k) {
        uint32_t index = 0;
        memcpy(&index, bytes + k * size, static_cast<size_t>(size));
        lo = std::min<int64_t>(lo, index);
        hi = std::max<int64_t>(hi, index);
      }
    }
    if (base_vertex_i >= 0) {
      lo += as<GLint>(static_cast<size_t>(base_vertex_i));
      hi += as<GLint>(static_cast<size_t>(base_vertex_i));
    }
  }
  client_arrays(lo, hi, instances);
}

bool Validator::all_client_arrays_recorded() {
  for (uint32_t index : state_.client_attribs()) {
    bool recorded = false;
    for (const ClientArray& a : call_.client_arrays)
      recorded |= a.data != nullptr && client_array_key(a, state_) == index;
    if (!recorded) {
      fail(client_array_name(index) +
           " reads client memory, but the trace holds no client array of it for this draw");
      return false;
    }
  }
  return true;
}

void Validator::client_arrays(int64_t lo, int64_t hi, int64_t instances) {
  for (const ClientArray& a : call_.client_arrays) {
    if (a.data == nullptr) continue;  // Args reports it missing
    uint32_t key = client_array_key(a, state_);
    if (a.array != 0 && key == kNoArray) {
      fail("a client array of " + client_array_name(a) + ", which GLES 1 has not");
      return;
    }
    // Generic attributes by their recorded index, as the state knows them.
    StateView::Attrib format = state_.attrib(a.array != 0 ? key : a.index);
    int64_t stride = a.stride != 0 ? a.stride : format.element_bytes;
    int64_t from = lo, to = hi;
    if (format.divisor > 0) {
      from = 0;
      to = (instances + format.divisor - 1) / format.divisor - 1;
    }
    auto first = static_cast<int64_t>(a.first);
    auto have = static_cast<int64_t>(a.data->size());
    if (a.first > static_cast<uint64_t>(INT64_MAX) || from < first) {
      fail("the client array of " + client_array_name(a) + " starts at vertex " +
           std::to_string(a.first) + ", the draw reads vertex " + std::to_string(from));
      return;
    }
    int64_t need = mul(to - first, stride);
    need = need > INT64_MAX - format.element_bytes ? INT64_MAX : need + format.element_bytes;
    if (have < need) {
      fail("the client array of " + client_array_name(a) + " holds " + std::to_string(have) +
           " bytes, the draw reads " + std::to_string(need) + " (vertices " + std::to_string(from) +
           " to " + std::to_string(to) + ")");
      return;
    }
  }
}

int64_t Validator::unpack_image(uint32_t format, uint32_t type, int64_t width, int64_t height,
                                int64_t depth) {
  auto integer = [this](uint32_t pname) { return state_.integer(pname); };
  return image_bytes(unpack_layout(integer, depth), format, type, width, height, depth);
}

int64_t Validator::pack_image(uint32_t format, uint32_t type, int64_t width, int64_t height) {
  auto integer = [this](uint32_t pname) { return state_.integer(pname); };
  return image_bytes(pack_layout(integer), format, type, width, height, 1);
}

int64_t Validator::pname_count(uint32_t pname) {
  return pname_value_count(pname, [this](uint32_t n) { return state_.integer(n); });
}

int64_t saturate_to_int64(double x) {
  if (std::isnan(x)) return 0;
  if (x >= 9.2233720368547758e18) return INT64_MAX;
  if (x <= -9.2233720368547758e18) return INT64_MIN;
  return static_cast<int64_t>(x);
}

int64_t attrib_element_bytes(int64_t size, uint32_t type) {
  return vertex_format::element_bytes(std::clamp<int64_t>(size, 1, 4), type);
}

void validate_call(const ReplayCall& call, StateView& state, Validation* out) {
  Validator v(call, state, out);
  if (call.function >= api::kFunctionIdLimit) return;
  CheckFn check = kCheckRules[call.function];
  if (check != nullptr) check(v);
}

uint32_t client_array_key(const ClientArray& a, StateView& state) {
  if (a.array == 0) return state.attrib_index(a.index);
  int slot = fixed_arrays::slot(a.array, a.index);
  return slot < 0 ? kNoArray : kFixedKey + static_cast<uint32_t>(slot);
}

std::string client_array_name(uint32_t key) {
  if (key < kFixedKey || key - kFixedKey >= static_cast<uint32_t>(fixed_arrays::kSlots))
    return "attribute " + std::to_string(key);
  fixed_arrays::Array a = fixed_arrays::array_of(static_cast<int>(key - kFixedKey));
  std::string name = api::enum_name(a.array);
  if (a.array == fixed_arrays::kTexCoord) name += " of texture unit " + std::to_string(a.unit);
  return name;
}

std::string client_array_name(const ClientArray& a) {
  if (a.array == 0) return "attribute " + std::to_string(a.index);
  int slot = fixed_arrays::slot(a.array, a.index);
  if (slot >= 0) return client_array_name(kFixedKey + static_cast<uint32_t>(slot));
  return "array " + std::to_string(a.array) + " (unit " + std::to_string(a.index) + ")";
}

// --- TrackedState -----------------------------------------------------------------

int64_t TrackedState::integer(uint32_t pname) {
  if (pname == GL_ELEMENT_ARRAY_BUFFER_BINDING) {
    auto it = current_->element_buffers.find(current_->vertex_array);
    return it != current_->element_buffers.end() ? it->second : 0;
  }
  auto it = current_->integers.find(pname);
  if (it != current_->integers.end()) return it->second;
  return pname == GL_PACK_ALIGNMENT || pname == GL_UNPACK_ALIGNMENT ? 4 : 0;
}

std::vector<uint32_t> TrackedState::client_attribs() {
  std::vector<uint32_t> out;
  if (current_->vertex_array != 0) return out;
  for (auto [index, client] : current_->client)
    if (client && current_->enabled[index]) out.push_back(index);
  return out;
}

StateView::Attrib TrackedState::attrib(uint32_t index) {
  auto it = current_->attribs.find(index);
  return it != current_->attribs.end() ? it->second : Attrib{};
}

void TrackedState::update(const ReplayCall& call) {
  set_context(call.context);
  Context& c = *current_;
  auto arg = [&](size_t i) -> int64_t {
    if (i >= call.args.size()) return 0;
    const Value& v = call.args[i];
    return v.kind == ValueKind::kSint ? v.sint
           : v.kind == ValueKind::kUint || v.kind == ValueKind::kPointer
               ? static_cast<int64_t>(v.uint)
               : 0;
  };
  switch (call.function) {
    case api::kFn_glBindBuffer: {
      auto target = static_cast<uint32_t>(arg(0));
      int64_t buffer = arg(1);
      if (target == GL_ELEMENT_ARRAY_BUFFER) {
        c.element_buffers[c.vertex_array] = buffer;
        break;
      }
      // The binding's pname is the target's for the targets the rules read.
      static constexpr std::pair<uint32_t, uint32_t> kBindings[] = {
          {GL_ARRAY_BUFFER, GL_ARRAY_BUFFER_BINDING},
          {GL_PIXEL_PACK_BUFFER, GL_PIXEL_PACK_BUFFER_BINDING},
          {GL_PIXEL_UNPACK_BUFFER, GL_PIXEL_UNPACK_BUFFER_BINDING},
          {GL_DRAW_INDIRECT_BUFFER, GL_DRAW_INDIRECT_BUFFER_BINDING}};
      for (auto [t, pname] : kBindings)
        if (t == target) c.integers[pname] = buffer;
      break;
    }
    case api::kFn_glDeleteBuffers: {
      // A deleted buffer is unbound from the current context.
      const Value* names = call.args.size() > 1 ? &call.args[1] : nullptr;
      if (names == nullptr || names->kind != ValueKind::kArray) break;
      std::vector<int64_t> deleted;
      for (uint64_t n : names->uints()) deleted.push_back(static_cast<int64_t>(n));
      for (int64_t n : names->sints()) deleted.push_back(n);
      for (int64_t n : deleted) {
        if (n == 0) continue;
        for (auto& [pname, value] : c.integers)
          if (value == n && pname != GL_UNPACK_ALIGNMENT && pname != GL_PACK_ALIGNMENT) value = 0;
        if (c.element_buffers[c.vertex_array] == n) c.element_buffers[c.vertex_array] = 0;
      }
      break;
    }
    case api::kFn_glBindVertexArray:
    case api::kFn_glBindVertexArrayOES:
      c.vertex_array = static_cast<uint64_t>(arg(0));
      break;
    case api::kFn_glPixelStorei:
      c.integers[static_cast<uint32_t>(arg(0))] = arg(1);
      break;
    case api::kFn_glVertexAttribPointer:
    case api::kFn_glVertexAttribIPointer: {
      c.attribs[static_cast<uint32_t>(arg(0))].element_bytes =
          attrib_element_bytes(arg(1), static_cast<uint32_t>(arg(2)));
      if (c.vertex_array == 0)
        c.client[static_cast<uint32_t>(arg(0))] = integer(GL_ARRAY_BUFFER_BINDING) == 0;
      break;
    }
    // GLES 1's arrays, by key (texture coordinates: the client-active unit's).
    case api::kFn_glClientActiveTexture:
      c.client_unit = static_cast<uint32_t>(arg(0)) - fixed_arrays::kTexture0;
      break;
    case api::kFn_glVertexPointer:
    case api::kFn_glColorPointer:
    case api::kFn_glTexCoordPointer:
    case api::kFn_glNormalPointer: {
      bool normal = call.function == api::kFn_glNormalPointer;
      uint32_t array = call.function == api::kFn_glVertexPointer  ? fixed_arrays::kVertex
                       : call.function == api::kFn_glColorPointer ? fixed_arrays::kColor
                       : normal                                   ? fixed_arrays::kNormal
                                                                  : fixed_arrays::kTexCoord;
      int slot = fixed_arrays::slot(array, c.client_unit);
      if (slot < 0) break;
      uint32_t key = kFixedKey + static_cast<uint32_t>(slot);
      c.attribs[key].element_bytes =
          normal ? attrib_element_bytes(3, static_cast<uint32_t>(arg(0)))
                 : attrib_element_bytes(arg(0), static_cast<uint32_t>(arg(1)));
      c.client[key] = integer(GL_ARRAY_BUFFER_BINDING) == 0;
      break;
    }
    case api::kFn_glEnableClientState:
    case api::kFn_glDisableClientState: {
      int slot = fixed_arrays::slot(static_cast<uint32_t>(arg(0)), c.client_unit);
      if (slot >= 0)
        c.enabled[kFixedKey + static_cast<uint32_t>(slot)] =
            call.function == api::kFn_glEnableClientState;
      break;
    }
    case api::kFn_glEnableVertexAttribArray:
    case api::kFn_glDisableVertexAttribArray:
      if (c.vertex_array == 0)
        c.enabled[static_cast<uint32_t>(arg(0))] =
            call.function == api::kFn_glEnableVertexAttribArray;
      break;
    case api::kFn_glVertexAttribDivisor:
    case api::kFn_glVertexAttribDivisorEXT:
      c.attribs[static_cast<uint32_t>(arg(0))].divisor = arg(1);
      break;
    default:
      break;
  }
}

}  // namespace gltrace::glreplay
