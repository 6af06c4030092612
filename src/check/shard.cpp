#include "check/shard.h"

#include <cstdlib>
#include <string_view>

namespace gltrace::check {

namespace {

bool number(std::string_view text, uint32_t* out) {
  if (text.empty() || text.size() > 9) return false;
  uint32_t n = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    n = n * 10 + static_cast<uint32_t>(c - '0');
  }
  *out = n;
  return true;
}

// An environment pair: the index's base (0 or 1) is the convention's.
bool from_env(const char* index_name, const char* total_name, uint32_t base, uint32_t shards,
              Shard* out, bool* found, std::string* error) {
  const char* index = getenv(index_name);
  if (index == nullptr || *index == '\0') return true;
  const char* total = total_name != nullptr ? getenv(total_name) : nullptr;
  std::string from = std::string(index_name) + "=" + index;
  uint32_t i = 0, n = shards;
  if (total != nullptr && *total != '\0') {
    from += std::string(" ") + total_name + "=" + total;
    if (!number(total, &n)) n = 0;
  }
  if (!number(index, &i) || n == 0 || i < base || i - base >= n) {
    *error = from + (n == 0 ? ": the shard count is missing (--shards N)"
                            : ": not a shard index from " + std::to_string(base) +
                                  " with a count of " + std::to_string(n));
    return false;
  }
  *out = Shard{i - base + 1, n, from};
  *found = true;
  return true;
}

}  // namespace

bool choose_shard(const std::string& option, uint32_t shards, Shard* out, std::string* error) {
  *out = Shard{};
  if (!option.empty()) {
    size_t slash = option.find('/');
    uint32_t i = 0, n = 0;
    if (slash == std::string::npos || !number(std::string_view(option).substr(0, slash), &i) ||
        !number(std::string_view(option).substr(slash + 1), &n) || n == 0 || i == 0 || i > n ||
        (shards != 0 && shards != n)) {
      *error = "--shard wants I/N with 1 <= I <= N, not '" + option + "'";
      return false;
    }
    *out = Shard{i, n, "--shard " + option};
    return true;
  }
  bool found = false;
  if (!from_env("GTEST_SHARD_INDEX", "GTEST_TOTAL_SHARDS", 0, shards, out, &found, error) ||
      (!found && !from_env("CI_NODE_INDEX", "CI_NODE_TOTAL", 1, shards, out, &found, error)) ||
      (!found && !from_env("JOB_COMPLETION_INDEX", nullptr, 0, shards, out, &found, error)))
    return false;
  if (!found && shards > 1) {
    *error = "--shards " + std::to_string(shards) +
             " wants an index: --shard I/N, GTEST_SHARD_INDEX, CI_NODE_INDEX or "
             "JOB_COMPLETION_INDEX";
    return false;
  }
  return true;
}

}  // namespace gltrace::check
