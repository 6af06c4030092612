// `gltrace`: one executable, subcommands registered in commands.h.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "cli/commands.h"

namespace gltrace::cli {

CommandLine& Commands::add(const std::string& name, const std::string& summary,
                           std::function<int(const CommandLine& line)> run) {
  auto line = std::make_unique<CommandLine>("gltrace " + name, "gltrace help " + name);
  CommandLine& ref = *line;
  commands_.push_back({name, summary, std::move(line), std::move(run)});
  return ref;
}

const Command* Commands::find(const std::string& name) const {
  for (const Command& command : commands_)
    if (command.name == name) return &command;
  return nullptr;
}

int usage_error(const char* command, const std::string& message) {
  fprintf(stderr, "gltrace %s: %s\nsee 'gltrace help %s'\n", command, message.c_str(), command);
  return kExitUsage;
}

namespace {

void print_usage(const Commands& commands, FILE* out) {
  fputs(
      "usage: gltrace COMMAND [ARGS...]\n"
      "       gltrace help COMMAND\n"
      "       gltrace --help | --version\n"
      "\n"
      "commands:\n",
      out);
  for (const Command& command : commands.all())
    fprintf(out, "  %-10s %s\n", command.name.c_str(), command.summary.c_str());
  fputs("\n`gltrace help COMMAND` (or `gltrace COMMAND --help`) shows a command's options.\n", out);
}

int global_usage_error(const std::string& message) {
  fprintf(stderr, "gltrace: %s\nsee 'gltrace --help'\n", message.c_str());
  return kExitUsage;
}

std::vector<std::string> command_names(const Commands& commands) {
  std::vector<std::string> names = {"help"};
  for (const Command& command : commands.all()) names.push_back(command.name);
  return names;
}

int unknown_command(const Commands& commands, const std::string& word) {
  return global_usage_error("unknown command '" + word + "'" +
                            did_you_mean(word, command_names(commands)));
}

int help(const Commands& commands, const std::vector<std::string>& args) {
  if (args.empty()) {
    print_usage(commands, stdout);
    return kExitOk;
  }
  if (args.size() > 1) return global_usage_error("help takes one COMMAND");
  const Command* command = commands.find(args[0]);
  if (command == nullptr) return unknown_command(commands, args[0]);
  command->line->print_help(stdout);
  return kExitOk;
}

}  // namespace
}  // namespace gltrace::cli

int main(int argc, char** argv) {
  using namespace gltrace::cli;
  Commands commands;
#define GLTRACE_CLI_REGISTER(name) register_##name(commands);
  GLTRACE_CLI_COMMANDS(GLTRACE_CLI_REGISTER)
#undef GLTRACE_CLI_REGISTER

  if (argc < 2) return global_usage_error("missing COMMAND");
  const std::string first = argv[1];
  std::vector<std::string> rest(argv + 2, argv + argc);
  if (first == "--help" || first == "-h") return help(commands, {});
  if (first == "--version") {
    printf("gltrace %s\n", GLTRACE_VERSION);
    return fflush(stdout) != 0 ? kExitFailure : kExitOk;
  }
  if (first == "help") return help(commands, rest);
  if (first.size() > 1 && first[0] == '-')
    return global_usage_error("unknown option '" + first + "'" +
                              did_you_mean(first, {"--help", "--version"}));
  const Command* command = commands.find(first);
  if (command == nullptr) return unknown_command(commands, first);
  std::optional<int> parsed = command->line->parse(rest);
  int status = parsed ? *parsed : command->run(*command->line);
  // A full disk or closed pipe on stdout must not look like success to scripts.
  if (fflush(stdout) != 0 || ferror(stdout)) {
    fprintf(stderr, "gltrace %s: error writing output: %s\n", command->name.c_str(),
            strerror(errno));
    return kExitFailure;
  }
  return status;
}
