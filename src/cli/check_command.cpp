// `gltrace check`: a rendering CI's gate. Replays the traces of an
// expectations file on one driver and judges each against what the file
// expects on this device (src/check).
#include "check/runner.h"
#include "cli/commands.h"
#include "common/process.h"
#include "glreplay/driver_choice.h"

namespace gltrace::cli {

namespace {

struct CheckCommandOptions {
  check::CheckOptions run;
  std::string shard;
  uint32_t shards = 0;
  double timeout = 0;
  std::vector<std::string> inputs;  // the expectations file, or --merge's reports
  bool merge = false;
};

int check_command(CheckCommandOptions& o, const CommandLine& line) {
  check::CheckOptions& run = o.run;
  run.program = line.program();
  if (o.merge) {
    if (o.inputs.empty()) return line.usage_error("--merge wants the shards' results.json files");
    if (run.update || !run.driver.empty() || !o.shard.empty() || o.shards != 0 ||
        !run.traces.empty())
      return line.usage_error("--merge runs nothing: it takes no --update, --driver or --shard");
    std::string dir = run.results;
    return check::merge_check(run.program, o.inputs,
                              run.json.empty() ? dir + "/results.json" : run.json,
                              run.junit.empty() ? dir + "/junit.xml" : run.junit);
  }
  if (o.inputs.size() != 1) return line.usage_error("give one EXPECTATIONS file");
  run.expectations = o.inputs.front();
  std::string error;
  if (!check::choose_shard(o.shard, o.shards, &run.shard, &error)) return line.usage_error(error);
  if (run.update && run.shard.total > 1)
    return line.usage_error("--update rewrites the file: run it unsharded");
  if (o.timeout > 0) run.timeout = o.timeout;
  run.replayer = executable_path();
  if (run.replayer.empty()) {
    fprintf(stderr, "%s: cannot find its own executable to replay with\n", run.program.c_str());
    return kExitFailure;
  }
  return check::run_check(run);
}

}  // namespace

void register_check(Commands& commands) {
  auto options = std::make_shared<CheckCommandOptions>();
  CommandLine& line = commands.add(
      "check", "replay many traces and judge each against its expectations for this device",
      [options](const CommandLine& line) { return check_command(*options, line); });
  CLI::App& app = line.app();
  app.description(
      "Replays every trace EXPECTATIONS lists (a TOML file) on one driver, each in a process of\n"
      "its own under a timeout, and judges the frames it names against what the file expects of\n"
      "this device: a checksum of the replayed pixels, else a golden image within a tolerance,\n"
      "else (no expectation for this device) the trace's own images within the tolerance. The\n"
      "device is found by the driver's renderer, version and vendor strings. Traces are known\n"
      "by the hash of their bytes. Labels: skip, flaky (a failure is reported, not counted),\n"
      "broken, crash, hang (that failure is expected; a pass says the label is stale), slow\n"
      "(run with --slow). Writes results.json and junit.xml to the results folder and keeps the\n"
      "replayed, expected and difference images of traces that failed, only those. Exit 1 when\n"
      "a trace failed. Shards: --shard I/N, or GTEST_SHARD_INDEX/GTEST_TOTAL_SHARDS,\n"
      "CI_NODE_INDEX/CI_NODE_TOTAL, JOB_COMPLETION_INDEX with --shards N; --merge joins their\n"
      "results.json into one report. docs/check.md has the file's format and CI examples.");
  app.add_option("--driver", options->run.driver, glreplay::kDriverOptionHelp)->type_name("DRIVER");
  app.add_option("-j,--jobs", options->run.jobs, "replay N traces at once (default 1)")
      ->type_name("N")
      ->check(in_range(1, 256));
  app.add_option("-r,--results", options->run.results,
                 "the results folder (default gltrace-check-results)")
      ->type_name("DIR");
  app.add_option("--json", options->run.json, "the JSON report (default RESULTS/results.json)")
      ->type_name("FILE");
  app.add_option("--junit", options->run.junit, "the JUnit XML report (default RESULTS/junit.xml)")
      ->type_name("FILE");
  app.add_flag("--update", options->run.update,
               "record this run's images as this device's expectations (checksums, and golden "
               "images in goldens/ beside the file), and take changed traces' hashes; adds the "
               "device when the file has none for this driver");
  app.add_flag("--slow", options->run.slow, "run the traces labelled slow too");
  app.add_option("--timeout", options->timeout,
                 "seconds a replay may take before it is killed and reported as a hang (over "
                 "the file's)")
      ->type_name("S")
      ->check(in_range(1, 86400));
  app.add_option("--shard", options->shard, "run shard I of N (1 <= I <= N)")->type_name("I/N");
  app.add_option("--shards", options->shards,
                 "the shard count, with the index from JOB_COMPLETION_INDEX (a Kubernetes "
                 "indexed Job)")
      ->type_name("N")
      ->check(in_range(1, 100000));
  app.add_option("--trace", options->run.traces, "only the trace of this name (repeatable)")
      ->type_name("NAME");
  app.add_flag("--merge", options->merge,
               "join the results.json files of a run's shards into one report (--json, --junit "
               "or the results folder)");
  app.add_option("EXPECTATIONS", options->inputs,
                 "the expectations file; with --merge, the shards' results.json files")
      ->type_name("FILE");
}

}  // namespace gltrace::cli
