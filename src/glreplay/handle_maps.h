// The replay's maps from a recorded GL name or handle to its own: NameMap,
// the GL object namespaces (ObjectClass) and the EGL handle kinds
// (HandleKind), and what contexts created sharing with each other have in
// common (ShareGroup).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "glreplay/program_resources.h"
#include "glstate/compressed_shadow.h"
#include "glstate/gl_reader.h"
#include "glstate/object_class.h"

namespace gltrace::glreplay {

using glstate::is_container;
using glstate::ObjectClass;

enum class HandleKind : uint8_t {
  kDisplay,
  kSurface,
  kContext,
  kConfig,
  kEglSync,
  kImage,
  kSync,
  kRaw
};

// Recorded value -> replay value; what was never defined maps to itself
// (GL names an app did not generate, 0). GL names are small and dense: those
// below kDenseLimit are looked up in a vector (a hash lookup per name was a
// visible share of a replay's own cost), the rest (EGL handles) in a map.
class NameMap {
 public:
  uint64_t get(uint64_t recorded) const {
    if (recorded == 0) return 0;
    if (recorded < dense_.size()) {
      uint64_t replayed = dense_[recorded];
      return replayed != kUnset ? replayed : recorded;
    }
    if (recorded < kDenseLimit) return recorded;
    auto it = sparse_.find(recorded);
    return it != sparse_.end() ? it->second : recorded;
  }
  void set(uint64_t recorded, uint64_t replayed) {
    if (!deleted_.empty()) deleted_.erase(recorded);
    if (recorded >= kDenseLimit) {
      sparse_[recorded] = replayed;
      return;
    }
    if (recorded >= dense_.size())
      dense_.resize(std::max<size_t>(recorded + 1, dense_.size() * 2), kUnset);
    dense_[recorded] = replayed;
  }
  void erase(uint64_t recorded) {
    if (recorded < dense_.size())
      dense_[recorded] = kUnset;
    else
      sparse_.erase(recorded);
  }
  // The recorded value that maps to `replayed` (a linear search: for the
  // state worker's replies, never on the replay's path); nullopt when none
  // does.
  std::optional<uint64_t> recorded_of(uint64_t replayed) const {
    for (size_t i = 1; i < dense_.size(); ++i)
      if (dense_[i] == replayed) return i;
    for (const auto& [recorded, value] : sparse_)
      if (value == replayed) return recorded;
    return std::nullopt;
  }
  // The app deleted this name. Its mapping stays (the object may live on
  // without it: a program in use, a texture still attached; and a later use
  // of the stale name maps as before); a snapshot leaves out what is gone.
  // A name generated again is no longer deleted.
  void mark_deleted(uint64_t recorded) {
    if (contains(recorded)) deleted_.insert(recorded);
  }
  bool deleted(uint64_t recorded) const { return deleted_.count(recorded) != 0; }
  // Calls f(recorded, replayed) for every value it maps.
  template <typename F>
  void for_each(F&& f) const {
    for (size_t i = 1; i < dense_.size(); ++i)
      if (dense_[i] != kUnset) f(uint64_t{i}, dense_[i]);
    for (const auto& [recorded, replayed] : sparse_) f(recorded, replayed);
  }
  bool contains(uint64_t recorded) const {
    if (recorded < kDenseLimit) return recorded < dense_.size() && dense_[recorded] != kUnset;
    return sparse_.count(recorded) != 0;
  }
  void clear() {
    dense_.clear();
    sparse_.clear();
    deleted_.clear();
  }

 private:
  static constexpr uint64_t kDenseLimit = 1 << 16;  // 512 KiB at most per map
  static constexpr uint64_t kUnset = ~uint64_t{0};
  std::vector<uint64_t> dense_;
  std::unordered_map<uint64_t, uint64_t> sparse_;
  std::unordered_set<uint64_t> deleted_;  // names the app deleted (rare: a set)
};

// What contexts created sharing with each other have in common.
struct ShareGroup {
  NameMap names[static_cast<size_t>(ObjectClass::kCount)];
  ProgramResources programs;
  // The shaders each recorded program last linked with (a snapshot links a
  // program whose shaders were detached since from them).
  std::unordered_map<uint64_t, std::vector<glstate::LinkedShader>> linked_shaders;
  // Copies of compressed uploads (by replay texture name): trim's snapshot
  // writes them, GLES cannot read them back.
  glstate::CompressedShadows compressed{kCompressedCopiesLimit};
  static constexpr size_t kCompressedCopiesLimit = size_t{4} << 30;
};

}  // namespace gltrace::glreplay
