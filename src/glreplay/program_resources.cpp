#include "glreplay/program_resources.h"

namespace gltrace::glreplay {
namespace {

// The recorded number that maps to `replayed` in a program's map (a linear
// search: snapshots only); the replay's own when none does.
int64_t recorded_of(const std::unordered_map<uint64_t, LocationMap>& maps, uint64_t program,
                    int64_t replayed) {
  auto it = maps.find(program);
  if (it == maps.end()) return replayed;
  for (const auto& [recorded, location] : it->second)
    if (location == replayed) return recorded;
  return replayed;
}

}  // namespace

int64_t ProgramResources::uniform_location(uint64_t program, int64_t recorded) const {
  if (recorded < 0) return recorded;
  auto locations = uniforms_.find(program);
  if (locations == uniforms_.end()) return recorded;
  auto it = locations->second.find(recorded);
  return it != locations->second.end() ? it->second : recorded;
}

void ProgramResources::define_uniform_location(uint64_t program, int64_t recorded,
                                               int64_t replayed) {
  uniforms_[program][recorded] = replayed;
}

int64_t ProgramResources::recorded_uniform_location(uint64_t program, int64_t replayed) const {
  return recorded_of(uniforms_, program, replayed);
}

std::optional<int64_t> ProgramResources::attrib_location(uint64_t program, int64_t recorded) const {
  auto locations = attributes_.find(program);
  if (locations == attributes_.end()) return std::nullopt;
  auto it = locations->second.find(recorded);
  if (it == locations->second.end()) return std::nullopt;
  return it->second;
}

void ProgramResources::define_attrib_location(uint64_t program, int64_t recorded,
                                              int64_t replayed) {
  attributes_[program][recorded] = replayed;
}

int64_t ProgramResources::recorded_attrib_location(uint64_t program, int64_t replayed) const {
  return recorded_of(attributes_, program, replayed);
}

uint64_t ProgramResources::recorded_resource_index(uint64_t program, uint32_t interface,
                                                   uint64_t replayed) const {
  auto indices = resources_.find({program, interface});
  if (indices == resources_.end()) return replayed;
  for (const auto& [recorded, index] : indices->second)
    if (index == static_cast<int64_t>(replayed)) return static_cast<uint64_t>(recorded);
  return replayed;
}

uint64_t ProgramResources::resource_index(uint64_t program, uint32_t interface,
                                          uint64_t recorded) const {
  auto indices = resources_.find({program, interface});
  if (indices == resources_.end()) return recorded;
  auto it = indices->second.find(static_cast<int64_t>(recorded));
  return it != indices->second.end() ? static_cast<uint64_t>(it->second) : recorded;
}

void ProgramResources::define_resource_index(uint64_t program, uint32_t interface,
                                             uint64_t recorded, uint64_t replayed) {
  resources_[{program, interface}][static_cast<int64_t>(recorded)] = static_cast<int64_t>(replayed);
}

void ProgramResources::forget(uint64_t program) {
  uniforms_.erase(program);
  attributes_.erase(program);
  std::erase_if(resources_, [&](const auto& entry) { return entry.first.first == program; });
}

}  // namespace gltrace::glreplay
