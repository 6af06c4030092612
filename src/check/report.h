// The results of `gltrace check`: one per trace, as JSON (what --merge
// reads back) and as JUnit XML (what CI engines show).
#pragma once

#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <type_traits>
#include <vector>

#include "check/expectations.h"

namespace gltrace::check {

enum class Status : uint8_t {
  kPass,
  kFail,            // a frame differs from its expectation, or none is recorded
  kCrash,           // the replay died of a signal
  kHang,            // the replay ran past its timeout
  kError,           // the trace could not be replayed (missing, changed, refused calls)
  kSkip,            // labelled skip, or slow without --slow
  kFlaky,           // labelled flaky, and it failed: reported, not counted
  kExpected,        // labelled broken, crash or hang, and it was so
  kUnexpectedPass,  // labelled broken, crash or hang, and it passed: the label is stale
};
const char* status_name(Status status);
bool parse_status(const std::string& text, Status* out);
// Whether the run fails for it.
bool is_failure(Status status);

struct FrameResult {
  uint64_t frame = 0;
  std::string checksum;  // of the replayed image ("" when there is none)
  // How it was judged: checksum (matched its recorded one), identical,
  // within_tolerance, differs, size_differs, missing (not replayed).
  std::string verdict;
  uint64_t pixels = 0;  // beyond the channel delta
  int max_channel_difference = 0;
  double psnr = 0, ssim = 0;
  // Kept only when the trace failed: the replayed image, the one it was
  // compared with, and their difference (paths under the results folder).
  std::string image, expected, difference;
};

struct TraceResult {
  size_t index = 0;  // in the expectations file
  std::string name, path, hash;
  Status status = Status::kPass;
  std::string message;
  std::string label;
  double seconds = 0;
  std::vector<FrameResult> frames;
  std::string log;  // the replay's output, kept when it failed
};

struct Report {
  std::string expectations;       // the file
  std::string expectations_hash;  // of its bytes: shards of one run agree on it
  std::string device;             // its name in the file; "" for none
  DriverIdentity driver;
  std::string driver_choice;  // --driver
  uint32_t shard = 1, shards = 1;
  size_t traces = 0;  // in the file
  std::vector<TraceResult> results;

  size_t count(Status status) const;
  bool failed() const;
};

std::string report_json(const Report& report);
bool read_report_json(const std::string& path, Report* out, std::string* error);
std::string report_junit(const Report& report);

// One report of shards of one run: the same file and device, each trace
// once; false with *error saying what does not fit (a shard missing, two
// of one run's shards taken for one).
bool merge_reports(const std::vector<Report>& shards, Report* out, std::string* error);

bool write_text(const std::string& path, const std::string& text, std::string* error);

// `key` of a JSON object when it is there with the type asked, else
// `fallback`: what the replay or a shard wrote is read without throwing
// (JSON has no infinity: an image's PSNR may be null).
template <typename T>
T json_or(const nlohmann::json& object, const char* key, T fallback) {
  if (!object.is_object()) return fallback;
  auto it = object.find(key);
  if (it == object.end()) return fallback;
  if constexpr (std::is_same_v<T, std::string>) {
    return it->is_string() ? it->template get<std::string>() : fallback;
  } else if constexpr (std::is_same_v<T, bool>) {
    return it->is_boolean() ? it->template get<bool>() : fallback;
  } else {
    return it->is_number() ? it->template get<T>() : fallback;
  }
}

}  // namespace gltrace::check
