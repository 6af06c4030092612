// `gltrace check`: replays every trace of an expectations file (a shard of
// it) on one driver, each in a process of its own under a timeout, and
// judges each against what the file expects on this device.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "check/shard.h"

namespace gltrace::check {

struct CheckOptions {
  std::string program;       // for messages: "gltrace check"
  std::string replayer;      // the gltrace executable whose `replay` runs each trace
  std::string expectations;  // the file
  std::string driver;        // --driver ("": default)
  std::string results = "gltrace-check-results";  // folder: report, JUnit, kept images
  std::string json, junit;                        // "": in the results folder
  unsigned jobs = 1;
  bool update = false;            // --update: record this run's images as the expectations
  bool slow = false;              // run traces labelled slow
  std::optional<double> timeout;  // over the file's, seconds per replay
  Shard shard;
  std::vector<std::string> traces;  // --trace NAME: only these
};

// The exit status: 0 when nothing failed, 1 when a trace failed, 2 when the
// run could not be made (the file, the driver).
int run_check(const CheckOptions& options);

// --merge: one report of shard reports (JSON) into `json` and `junit`.
int merge_check(const std::string& program, const std::vector<std::string>& reports,
                const std::string& json, const std::string& junit);

}  // namespace gltrace::check
