// Checks a recorded call before the driver sees it: every pointer argument
// must be backed by captured bytes of at least the size the driver will read
// (the registry's len= rules and COMPSIZE with the pixel-store state), be an
// offset into a buffer bound to the parameter's target, or be NULL where GL
// allows it; outputs get scratch at least as large as the driver writes. A
// trace is hostile input: what it claims is never trusted.
//
// Pure logic: the GL state a rule depends on (buffer bindings, pixel-store
// parameters, client vertex array formats) comes from a StateView, which the
// real replay answers with the driver and `--check` with the trace's own
// calls (TrackedState). The per-function rules are generated from the
// registry (codegen/gltrace_codegen/validate.py → validate_rules.inc).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/fixed_arrays.h"
#include "glreplay/call.h"

namespace gltrace::glreplay {

// The GL state the size rules read, as it is when the call runs.
class StateView {
 public:
  struct Attrib {
    int64_t element_bytes = 16;  // size * sizeof(type)
    int64_t divisor = 0;
  };

  virtual ~StateView() = default;
  // glGetIntegerv(pname) for the GL_*_BUFFER_BINDING and GL_[UN]PACK_* pnames.
  virtual int64_t integer(uint32_t pname) = 0;
  // The format the replay gives client array `index` (recorded attribute,
  // or a GLES 1 array's key).
  virtual Attrib attrib(uint32_t index) = 0;
  // The attributes a draw now reads from client memory (enabled at vertex
  // array 0 with no array buffer), as the replay numbers them, and the GLES 1
  // arrays that do (by key). Each needs the draw's ClientArray, or the driver
  // reads memory the replay does not own.
  virtual std::vector<uint32_t> client_attribs() = 0;
  // The replay's number of a recorded attribute index.
  virtual uint32_t attrib_index(uint32_t recorded) { return recorded; }
  // The smallest and largest of `count` indices of `type` at `offset` in the
  // bound element array buffer. nullopt when they cannot be read; a state
  // that never reads buffers (--check) answers {0, -1}: nothing to check.
  virtual std::optional<std::pair<int64_t, int64_t>> buffer_index_range(uint64_t offset,
                                                                        int64_t count,
                                                                        uint32_t type) = 0;
};

// What validation found for one call.
struct Validation {
  std::string error;  // empty: the call may run
  // An argument the replay needs whose data the trace does not hold (a
  // pointer the capture could not size: "argument X was not captured
  // (why)"); the replay's Args refuses the call for it, --check names it.
  std::string uncaptured;
  // Per argument: bytes the driver may write through an output pointer (the
  // scratch Args::out must give at least), or kOffset when the recorded
  // pointer is an offset into a bound buffer; 0 when no rule applies (empty
  // when none did).
  static constexpr int64_t kOffset = -1;
  std::vector<int64_t> output_bytes;
  bool ok() const { return error.empty(); }
  int64_t output(size_t i) const { return i < output_bytes.size() ? output_bytes[i] : 0; }
};

// The checks of one call, called by the generated per-function rules.
class Validator {
 public:
  Validator(const ReplayCall& call, StateView& state, Validation* out);

  // Scalars as recorded (floats saturate).
  int64_t s(size_t i) const;
  uint64_t u(size_t i) const;
  // Argument i as the driver gets it: converted to the parameter's type T
  // as the replay converts it, then widened.
  template <typename T>
  int64_t as(size_t i) const {
    return static_cast<int64_t>(static_cast<T>(s(i)));
  }

  // An input the driver reads `count` elements of `element_size` bytes from
  // (count < 0: the size cannot be computed). `binding` (a glGet pname, or 0)
  // names the buffer a bare pointer value may be an offset into; null_ok:
  // GL allows NULL (glBufferData, glTexImage2D).
  void input(size_t i, size_t element_size, int64_t count, uint32_t binding, bool null_ok);
  // A NUL-terminated string (or `length` bytes when length >= 0); null_ok:
  // GL takes NULL (glObjectLabel).
  void text(size_t i, int64_t length = -1, bool null_ok = false);
  // A list of `count` strings, string k `length[k]` chars when the length
  // array (parameter length_index, or -1) gives one >= 0 (glShaderSource).
  void strings(size_t i, int64_t count, int length_index);
  // An attribute list the driver reads up to its `none` key (EGL_NONE, or
  // GL_NONE for GL's lists).
  void attrib_list(size_t i, size_t element_size, int32_t none = 0x3038 /* EGL_NONE */);
  // An input the rules cannot size: only uncaptured or null values pass.
  void unsized(size_t i);
  // An output the driver writes `count` elements to (count < 0: unknown).
  void output(size_t i, size_t element_size, int64_t count, uint32_t binding);
  // A draw: indices (client data or an offset into the element array
  // buffer) and the client arrays cover what the driver reads. Absent
  // parameters are -1.
  void draw(int first, int count, int type, int indices, int instances, int base_vertex);
  // glMultiDrawElementsEXT's index arrays (parameter i; counts, type and
  // the number of draws at those parameters): each list covers its count,
  // or, as offsets, an element array buffer is bound. Client vertex arrays
  // are not captured for these draws: a call that would read them is refused.
  void index_lists(size_t i, int counts_i, int type_i, int n_i);
  // An indirect draw: its command is read from the bound buffer only.
  void indirect(size_t i, int64_t bytes);

  // COMPSIZE rules.
  int64_t unpack_image(uint32_t format, uint32_t type, int64_t width, int64_t height,
                       int64_t depth);
  int64_t pack_image(uint32_t format, uint32_t type, int64_t width, int64_t height);
  int64_t pname_count(uint32_t pname);

  void fail(const std::string& message);
  bool ok() const { return out_->error.empty(); }

 private:
  const Value* arg(size_t i);
  std::string name_of(size_t i) const;
  void not_captured(size_t i, const Value& v);
  bool bound(uint32_t binding);
  bool all_client_arrays_recorded();
  void client_arrays(int64_t lo, int64_t hi, int64_t instances);
  // Argument i's output bytes (i is an argument's index).
  void set_output(size_t i, int64_t bytes);

  const ReplayCall& call_;
  StateView& state_;
  Validation* out_;
};

// A recorded float as an integer argument: saturated, NaN as 0 (a plain
// conversion of an out-of-range float is undefined).
int64_t saturate_to_int64(double x);

// GLES 1's arrays share StateView's numbering of attributes: kFixedKey +
// their slot (common/fixed_arrays.h).
inline constexpr uint32_t kFixedKey = 0x80000000u;
inline constexpr uint32_t kNoArray = 0xffffffffu;  // a GLES 1 array of no slot
// The key a draw's ClientArray answers to, in the replay's numbering.
uint32_t client_array_key(const ClientArray& a, StateView& state);
// "attribute 3", "GL_TEXTURE_COORD_ARRAY of texture unit 1": what a key
// names, and what a ClientArray of the trace does.
std::string client_array_name(uint32_t key);
std::string client_array_name(const ClientArray& a);

// Bytes of one element of a vertex attribute of `size` components of `type`.
int64_t attrib_element_bytes(int64_t size, uint32_t type);

// Runs the rules of call.function (generated and the draws'); functions
// without pointer arguments always pass.
void validate_call(const ReplayCall& call, StateView& state, Validation* out);

// The GL state --check needs, followed from the trace's own calls per
// recorded context: buffer bindings (the element array buffer per vertex
// array object), pixel-store parameters, client vertex array formats.
class TrackedState : public StateView {
 public:
  // Sets the context the next answers are for (ReplayCall.context).
  void set_context(uint32_t context) { current_ = &contexts_[context]; }
  // After the call ran: what it changed.
  void update(const ReplayCall& call);

  int64_t integer(uint32_t pname) override;
  Attrib attrib(uint32_t index) override;
  std::optional<std::pair<int64_t, int64_t>> buffer_index_range(uint64_t, int64_t,
                                                                uint32_t) override {
    return std::pair<int64_t, int64_t>{0, -1};
  }
  std::vector<uint32_t> client_attribs() override;

 private:
  struct Context {
    std::map<uint32_t, int64_t> integers;         // by glGet pname
    std::map<uint64_t, int64_t> element_buffers;  // by vertex array
    uint64_t vertex_array = 0;
    std::map<uint32_t, Attrib> attribs;
    // At vertex array 0: attributes enabled, and those pointing at client
    // memory (GLES 1 arrays by key too).
    std::map<uint32_t, bool> enabled, client;
    uint32_t client_unit = 0;  // GLES 1: glClientActiveTexture's
  };
  std::map<uint32_t, Context> contexts_;
  Context* current_ = &contexts_[0];
};

}  // namespace gltrace::glreplay
