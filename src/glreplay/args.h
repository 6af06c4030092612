// Turns one recorded call's Values back into C arguments, for the generated
// replay functions (gltrace/api/replay_calls.inc) and the hand-written ones.
// Each accessor takes the parameter's index; a value that cannot be turned
// into the argument (not captured, wrong kind) records the first failure,
// which the caller sees through ok() before it calls the driver. Memory it
// hands out (converted arrays, output scratch) lives until the next call.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "glreplay/call.h"
#include "glreplay/session.h"
#include "glreplay/validate.h"

namespace gltrace::glreplay {

// Scratch memory reused from call to call (its blocks keep their capacity).
class Arena {
 public:
  // `size` zeroed bytes, 16-byte aligned.
  void* get(size_t size);
  void reset() { used_ = 0; }

 private:
  std::vector<std::unique_ptr<uint8_t[]>> blocks_;
  std::vector<size_t> sizes_;
  size_t used_ = 0;
};

// Converts to any argument type as its zero: what a failed conversion passes
// (the call is not made anyway).
struct Zero {
  template <typename T>
  operator T() const {  // NOLINT(google-explicit-constructor): converts by design
    return T{};
  }
};

// The GL state validation reads, answered by the driver at the call.
class DriverState : public StateView {
 public:
  explicit DriverState(Session& session) : session_(session) {}
  int64_t integer(uint32_t pname) override;
  Attrib attrib(uint32_t index) override;
  std::optional<std::pair<int64_t, int64_t>> buffer_index_range(uint64_t offset, int64_t count,
                                                                uint32_t type) override;
  std::vector<uint32_t> client_attribs() override;
  uint32_t attrib_index(uint32_t recorded) override;

 private:
  std::vector<uint32_t> client_fixed_arrays();

  Session& session_;
};

// How `gltrace diverge` reads a call's result (Args::note_result; the
// generated calls pick it, codegen's _RESULT_FORMS).
enum class ResultForm : uint8_t {
  kNumber,
  kEnum,
  kLocation,  // a uniform or attribute location: only whether there is one
  kIndex,     // a resource index: only whether there is one (GL_INVALID_INDEX)
};

class Args {
 public:
  enum class Kind : uint8_t { kUint, kSint, kFloat, kDouble };
  // An output the driver wrote, kept for the session's outcome writer
  // (--outcomes): `bytes` of `element_size` elements at `data`, as many as
  // the trace recorded there or, when it recorded none, as the call's
  // arguments say the driver writes.
  struct Output {
    size_t param;
    const void* data;
    size_t bytes;
    uint8_t element_size;
    Kind kind;
  };

  // `checked`: what validate_call found for the call (output sizes), or null.
  Args(Session& session, const ReplayCall& call, Arena& arena, const Validation* checked = nullptr);

  const ReplayCall& call() const { return call_; }
  Session& session() { return session_; }
  size_t size() const { return call_.args.size(); }
  const Value* value(size_t i) const { return i < call_.args.size() ? &call_.args[i] : nullptr; }

  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }
  // Keeps the first failure.
  void fail(const std::string& message);
  bool missing();  // the driver lacks the function
  Zero unsupported(size_t i, const char* what);

  // Scalars, from whichever numeric kind was recorded.
  uint64_t u(size_t i);
  int64_t s(size_t i);
  float f(size_t i);
  double d(size_t i);

  // Remapped scalars.
  uint64_t name(size_t i, ObjectClass cls);
  int64_t uniform_location(size_t i, int program_index);
  uint64_t resource_index(size_t i, uint32_t interface, size_t program_index);
  int64_t attrib_location(size_t i);
  template <typename T>
  T handle(size_t i, HandleKind kind) {
    uint64_t bits = session_.map_handle(kind, raw_handle(i), &scratch_error_);
    if (!scratch_error_.empty()) fail(name_of(i) + ": " + scratch_error_);
    if constexpr (std::is_pointer_v<T>)
      return reinterpret_cast<T>(static_cast<uintptr_t>(bits));
    else
      return static_cast<T>(bits);
  }
  // The recorded handle value (no mapping).
  uint64_t raw_handle(size_t i);

  // Input pointers.
  const char* text(size_t i);
  const char* const* strings(size_t i);
  // glMultiDrawElementsEXT's index arrays: the recorded lists' bytes, or
  // the recorded offsets into the bound element array buffer.
  const void* const* index_lists(size_t i);
  const void* bytes(size_t i);
  // A draw's indices or indirect commands: data, or an offset into the
  // buffer bound at `binding` (a glGet pname) when the trace recorded only
  // the pointer (a size it could not compute).
  const void* bound_offset(size_t i, uint32_t binding);
  template <typename T>
  const T* array(size_t i) {
    return static_cast<const T*>(typed_array(i, sizeof(T), kind_of<T>()));
  }
  template <typename T>
  const T* names(size_t i, ObjectClass cls) {
    const T* in = array<T>(i);
    size_t n = element_count(i, sizeof(T));
    if (in == nullptr || n == 0) return in;
    T* out = static_cast<T*>(arena_.get(n * sizeof(T)));
    for (size_t k = 0; k < n; ++k)
      out[k] = static_cast<T>(session_.map_name(cls, static_cast<uint64_t>(in[k])));
    return out;
  }
  // Elements the recorded array or data of parameter i holds.
  size_t element_count(size_t i, size_t element_size) const;
  // The recorded handles of an array parameter (EGLConfig lists).
  std::vector<uint64_t> recorded_handles(size_t i) const;

  // Output pointers: zeroed scratch at least as large as the trace recorded,
  // as min_count elements and as validation found the driver writes; an
  // offset where validation found the recorded pointer is one into a bound
  // buffer. Never a recorded address, never null (GL allows null for some
  // outputs; scratch is as good, and safe where it does not).
  template <typename T>
  T* out(size_t i, int64_t min_count) {
    return static_cast<T*>(output(i, sizeof(T), kind_of<T>(), min_count));
  }

  // --- what calls define or change --------------------------------------------
  template <typename T>
  void define_names(size_t i, ObjectClass cls, const T* replayed) {
    if (replayed == nullptr) return;
    std::vector<uint64_t> recorded = recorded_handles(i);
    for (size_t k = 0; k < recorded.size(); ++k)
      session_.define_name(cls, recorded[k], static_cast<uint64_t>(replayed[k]));
  }
  void define_name(ObjectClass cls, uint64_t replayed);
  // The recorded names of parameter i (an array or one name) were deleted.
  void mark_deleted(size_t i, ObjectClass cls);
  template <typename T>
  void define_handle(HandleKind kind, T replayed) {
    uint64_t bits;
    if constexpr (std::is_pointer_v<T>)
      bits = reinterpret_cast<uintptr_t>(replayed);
    else
      bits = static_cast<uint64_t>(replayed);
    session_.define_handle(kind, ret_u(), bits);
  }
  // The recorded handle of parameter i names nothing any more (eglDestroyImage).
  void forget_handle(HandleKind kind, size_t i) { session_.forget_handle(kind, raw_handle(i)); }
  void define_uniform_location(size_t program_index, int64_t replayed);
  void define_resource_index(size_t program_index, uint32_t interface, uint64_t replayed);
  void define_attrib_location(size_t program_index, int64_t replayed);
  void use_program(size_t i);
  void forget_program(size_t i);
  // glLinkProgram: the shaders program `i` (replay name `replayed`) linked with.
  void remember_linked_shaders(size_t i, uint32_t replayed);
  // A compressed upload the driver took: its bytes are kept for a snapshot.
  void shadow_compressed_upload(const glstate::CompressedUpload& upload);

  // Vertex arrays in client memory (VAO 0): the pointer a
  // glVertexAttrib[I]Pointer passes, remembering the attribute's format.
  const void* vertex_pointer(size_t i, uint32_t index, int32_t size, uint32_t type,
                             uint8_t normalized, int32_t stride, bool integer);
  // GLES 1's glVertexPointer... (array: fixed_arrays.h): the same for its
  // array (texture coordinates: of the client-active unit).
  const void* fixed_pointer(size_t i, uint32_t array, int32_t size, uint32_t type, int32_t stride);
  // Before a draw: points the attributes (and GLES 1 arrays) the trace
  // recorded client data for at the replay's copy of it.
  bool set_client_arrays();

  // Mapped buffers.
  // A mapping is keyed as the trace keys it: a target, or (target 0) the
  // buffer's recorded name for glMapNamedBuffer*.
  void remember_mapping(uint32_t target, uint32_t buffer, void* pointer, int64_t offset,
                        int64_t length);
  void write_mapped_buffer(uint32_t target, uint32_t buffer);
  void forget_mapping(uint32_t target, uint32_t buffer);

  // The driver's answer to a call whose answer the app acted on: warns
  // when the trace recorded another (Session::note_divergent_result).
  void check_result(uint64_t replayed);
  // The same for the first value written to output `i` (its table's
  // checked_when): nothing when the trace holds no value there.
  void check_output(size_t i, uint64_t replayed);

  // The recorded return value.
  uint64_t ret_u() const;
  int64_t ret_s() const;

  // --- what the call answered, for --outcomes (outcomes.h) -------------------------
  // Kept only while the session records outcomes.
  void note_result(uint64_t replayed, ResultForm form) {
    if (session_.options().outcomes) result_ = {replayed, form};
  }
  std::optional<std::pair<uint64_t, ResultForm>> result() const { return result_; }
  const std::vector<Output>& outputs() const { return outputs_; }
  // What the call wrote is not compared: the driver's prose (role
  // driver_prose), a time (measured_when).
  void forget_outputs() { outputs_.clear(); }
  // Query `query` (a replay name) begins (role begins_query): a timer's
  // results are times, not compared (query_result).
  void begin_query(uint32_t target, uint64_t query) {
    if (session_.options().outcomes) session_.note_query_target(query, target);
  }
  void forget_timer_query_outputs(uint64_t query) {
    if (session_.is_timer_query(query)) outputs_.clear();
  }
  // The pixels a read wrote (role reads_pixels): kept when they are 8-bit
  // RGBA, which diverge compares as images.
  void note_pixels(int64_t width, int64_t height, uint32_t format, uint32_t type);
  std::optional<std::pair<uint32_t, uint32_t>> rgba8_pixels() const { return rgba8_pixels_; }

 private:
  // One GLES 1 array of the draw (texture coordinates: in their unit, the
  // app's client-active one kept in *active_unit to restore).
  void set_fixed_array(const ClientArray& a, const void* address, int32_t* active_unit);

  template <typename T>
  static constexpr Kind kind_of() {
    if constexpr (std::is_same_v<T, float>)
      return Kind::kFloat;
    else if constexpr (std::is_floating_point_v<T>)
      return Kind::kDouble;
    else if constexpr (std::is_signed_v<T>)
      return Kind::kSint;
    else
      return Kind::kUint;
  }
  const void* typed_array(size_t i, size_t element_size, Kind kind);
  void* output(size_t i, size_t element_size, Kind kind, int64_t min_count);
  std::string name_of(size_t i) const;
  const Value* need(size_t i);
  void not_captured(size_t i, const Value& v);

  Session& session_;
  const ReplayCall& call_;
  Arena& arena_;
  const Validation* checked_;
  std::string error_;
  std::string scratch_error_;
  std::optional<std::pair<uint64_t, ResultForm>> result_;
  std::vector<Output> outputs_;
  std::optional<std::pair<uint32_t, uint32_t>> rgba8_pixels_;  // width, height
};

}  // namespace gltrace::glreplay
