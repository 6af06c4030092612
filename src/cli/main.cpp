// `gltrace`: one executable, subcommands dispatched from the table below.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/surface_record_command.h"

namespace gltrace::cli {
namespace {

struct Command {
  const char* name;
  const char* summary;
  int (*run)(const std::vector<std::string>& args);
  const char* usage;
};

#define GLTRACE_CLI_ENTRY(name, summary) {#name, summary, cmd_##name, kUsage_##name},
constexpr Command kCommands[] = {GLTRACE_CLI_COMMANDS(GLTRACE_CLI_ENTRY)};
#undef GLTRACE_CLI_ENTRY

const Command* find_command(const std::string& name) {
  for (const Command& command : kCommands)
    if (name == command.name) return &command;
  return nullptr;
}

void print_usage(FILE* out) {
  fputs(
      "usage: gltrace COMMAND [ARGS...]\n"
      "       gltrace help COMMAND\n"
      "       gltrace --help | --version\n"
      "\n"
      "commands:\n",
      out);
  for (const Command& command : kCommands)
    fprintf(out, "  %-10s %s\n", command.name, command.summary);
}

int global_usage_error(const std::string& message) {
  fprintf(stderr, "gltrace: %s\n\n", message.c_str());
  print_usage(stderr);
  return kExitUsage;
}

int help(const std::vector<std::string>& args) {
  if (args.empty()) {
    print_usage(stdout);
    return kExitOk;
  }
  if (args.size() > 1) return global_usage_error("help takes one COMMAND");
  const Command* command = find_command(args[0]);
  if (command == nullptr) return global_usage_error("unknown command '" + args[0] + "'");
  fputs(command->usage, stdout);
  return kExitOk;
}

}  // namespace

int usage_error(const char* command, const std::string& message) {
  fprintf(stderr, "gltrace %s: %s\n\n", command, message.c_str());
  const Command* entry = find_command(command);
  if (entry != nullptr) fputs(entry->usage, stderr);
  return kExitUsage;
}

}  // namespace gltrace::cli

int main(int argc, char** argv) {
  using namespace gltrace::cli;
  if (argc < 2) return global_usage_error("missing COMMAND");
  const std::string first = argv[1];
  std::vector<std::string> rest(argv + 2, argv + argc);
  if (first == "--help" || first == "-h") return help({});
  if (first == "--version") {
    printf("gltrace %s\n", GLTRACE_VERSION);
    return kExitOk;
  }
  if (first == "help") return help(rest);
  // Temporary, until `gltrace surface` has its own dispatcher
  // (src/cli/surface_command.cpp): its record and from-gl subcommands.
  if (first == "surface" && argc >= 3 && strcmp(argv[2], "record") == 0)
    return surface_record_main(argc - 2, argv + 2);
  if (first == "surface" && argc >= 3 && strcmp(argv[2], "from-gl") == 0)
    return surface_from_gl_main(argc - 2, argv + 2);
  if (!first.empty() && first[0] == '-')
    return global_usage_error("unknown option '" + first + "'");
  const Command* command = find_command(first);
  if (command == nullptr) return global_usage_error("unknown command '" + first + "'");
  int status = command->run(rest);
  // A full disk or closed pipe on stdout must not look like success to scripts.
  if (fflush(stdout) != 0 || ferror(stdout)) {
    fprintf(stderr, "gltrace %s: error writing output: %s\n", command->name, strerror(errno));
    return kExitFailure;
  }
  return status;
}
