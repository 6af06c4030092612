// The gltrace subcommands.
//
// Adding a command NAME:
//   1. NAME_command.cpp (listed in src/cli/CMakeLists.txt) defines
//        void register_NAME(Commands& commands) {
//          auto options = std::make_shared<NameOptions>();
//          CommandLine& line = commands.add("NAME", "one-line summary",
//              [options](const CommandLine& line) { return run_name(*options, line); });
//          CLI::App& app = line.app();
//          app.description("What it does, for `gltrace help NAME`.");
//          app.add_option("-o,--output", options->output, "where it writes")->type_name("FILE");
//          app.add_flag("--quiet", options->quiet, "no progress line");
//          app.add_option("TRACE", options->trace, "the trace")->required();
//        }
//      Options are CLI11's (CLI/CLI.hpp): `--opt VALUE` and `--opt=VALUE` both
//      work, and the help's usage line and option list, the error messages,
//      the suggestions and the man page and completion (tools/cli_docs.py
//      reads --help-options) all come from these definitions. Give every
//      valued option a type_name(): it is the value's name in the help.
//      A value check the parser can do goes in ->check(one_of({...})) or
//      ->check(in_range(MIN, MAX)) (command_line.h: CLI::IsMember and
//      CLI::Range would add their descriptions to the value's name in the
//      help); one after parsing (options that exclude each other) calls
//      line.usage_error("...").
//   2. One X(NAME) line in GLTRACE_CLI_COMMANDS below: the order is that of
//      `gltrace --help`.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "command_line/command_line.h"

namespace gltrace::cli {

// A registered command: its command line and what runs once it is parsed.
struct Command {
  std::string name;
  std::string summary;
  std::unique_ptr<CommandLine> line;
  std::function<int(const CommandLine& line)> run;  // returns the exit status
};

class Commands {
 public:
  CommandLine& add(const std::string& name, const std::string& summary,
                   std::function<int(const CommandLine& line)> run);
  const std::vector<Command>& all() const { return commands_; }
  const Command* find(const std::string& name) const;

 private:
  std::vector<Command> commands_;
};

#define GLTRACE_CLI_COMMANDS(X) \
  X(settings)                   \
  X(run)                        \
  X(trace)                      \
  X(info)                       \
  X(dump)                       \
  X(stats)                      \
  X(export)                     \
  X(frames)                     \
  X(trim)                       \
  X(diff_state)                 \
  X(replay)                     \
  X(check)                      \
  X(diverge)                    \
  X(view)                       \
  X(ps)                         \
  X(attach)                     \
  X(detach)                     \
  X(options)                    \
  X(flight)                     \
  X(surface)

#define GLTRACE_CLI_DECLARE(name) void register_##name(Commands& commands);
GLTRACE_CLI_COMMANDS(GLTRACE_CLI_DECLARE)
#undef GLTRACE_CLI_DECLARE

// For checks after parsing: "gltrace NAME: MESSAGE" and "see 'gltrace help
// NAME'" on stderr; returns kExitUsage.
int usage_error(const char* command, const std::string& message);

}  // namespace gltrace::cli
