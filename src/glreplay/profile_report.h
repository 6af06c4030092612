// `replay --profile`'s tables, from a Profile (profiler.h): a summary, every
// frame, every render pass, per program, the most expensive draws (of the
// trace or of one frame) and the CPU time per function; as text, CSV or JSON.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "glreplay/profiler.h"

namespace gltrace::glreplay {

// The tables --profile=TABLES names.
inline constexpr const char* kProfileTables[] = {"summary",  "frames", "passes",
                                                 "programs", "draws",  "functions"};
inline constexpr char kDefaultProfileTables[] = "summary,programs,draws";

struct ProfileReportOptions {
  std::vector<std::string> tables;  // of kProfileTables
  std::string format = "text";      // text, csv or json
  size_t top = 10;                  // rows of `draws` (0: all)
  std::optional<uint64_t> frame;    // passes, programs and draws of this frame only
};

// "summary,draws" into names; false with *error on a name not in
// kProfileTables ("all": every one).
bool parse_profile_tables(const std::string& text, std::vector<std::string>* tables,
                          std::string* error);

// The report, ready to print.
std::string profile_report(const Profile& profile, const ProfileReportOptions& options);

}  // namespace gltrace::glreplay
