// What the replay's driver numbers its own way in a linked program: uniform
// and attribute locations, and the indices of other program resources
// (uniform and storage blocks, any glGetProgramResourceIndex interface).
// Each map goes from the recorded program's recorded number to the replay's,
// as the app learnt them; what the app never asked for maps to itself. One
// per share group (programs are shared).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <unordered_map>
#include <utility>

namespace gltrace::glreplay {

using LocationMap = std::unordered_map<int64_t, int64_t>;

class ProgramResources {
 public:
  // Negative locations (-1: none) pass through.
  int64_t uniform_location(uint64_t program, int64_t recorded) const;
  void define_uniform_location(uint64_t program, int64_t recorded, int64_t replayed);
  // The recorded location of a replay uniform location (the replay's own
  // when the app never asked for it).
  int64_t recorded_uniform_location(uint64_t program, int64_t replayed) const;
  // The program's answer for this attribute, nullopt when it gave none.
  std::optional<int64_t> attrib_location(uint64_t program, int64_t recorded) const;
  void define_attrib_location(uint64_t program, int64_t recorded, int64_t replayed);
  // The recorded location the app learnt for a replay attribute location
  // (the replay's own when it learnt none).
  int64_t recorded_attrib_location(uint64_t program, int64_t replayed) const;
  uint64_t resource_index(uint64_t program, uint32_t interface, uint64_t recorded) const;
  void define_resource_index(uint64_t program, uint32_t interface, uint64_t recorded,
                             uint64_t replayed);
  // The other way (the replay's own index when the app asked for none).
  uint64_t recorded_resource_index(uint64_t program, uint32_t interface, uint64_t replayed) const;
  // The program was deleted: its numbers go with it.
  void forget(uint64_t program);

 private:
  // recorded program -> recorded location -> replay location.
  std::unordered_map<uint64_t, LocationMap> uniforms_;
  std::unordered_map<uint64_t, LocationMap> attributes_;
  // (recorded program, program interface) -> recorded index -> replay index.
  std::map<std::pair<uint64_t, uint32_t>, LocationMap> resources_;
};

}  // namespace gltrace::glreplay
