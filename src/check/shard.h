// Which part of a trace list one `gltrace check` process runs, by the
// conventions CI engines already set: --shard I/N, GoogleTest's
// GTEST_SHARD_INDEX/GTEST_TOTAL_SHARDS (index from 0), GitLab's parallel
// jobs' CI_NODE_INDEX/CI_NODE_TOTAL (from 1), a Kubernetes indexed Job's
// JOB_COMPLETION_INDEX (from 0; the count from --shards N, which the Job
// does not say).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace gltrace::check {

struct Shard {
  uint32_t index = 1;  // from 1
  uint32_t total = 1;
  std::string from;  // where it came from, for messages ("" when unsharded)

  // Trace i of the file (from 0) is in shard (i mod total) + 1: each shard
  // gets every total-th trace, so slow neighbours spread.
  bool holds(size_t trace) const { return trace % total == index - 1; }
};

// `option` is --shard's text ("" when not given), `shards` --shards' count
// (0 when not given). False with *error for a malformed or out-of-range
// value, or an index with no count.
bool choose_shard(const std::string& option, uint32_t shards, Shard* out, std::string* error);

}  // namespace gltrace::check
