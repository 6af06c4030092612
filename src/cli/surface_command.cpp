// `gltrace surface SUBCOMMAND`: the surface-trace tools (proto/surface.proto).
// Each subcommand is one row of kSubcommands below.
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/surface_record_command.h"
#include "surface/description.h"
#include "surface/replay_cli.h"
#include "surface/trace_io.h"

namespace gltrace::cli {

namespace {

constexpr const char* kCommand = "surface";

bool read_text(const std::string& path, std::string* text, std::string* error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    *error = path + ": cannot open";
    return false;
  }
  std::ostringstream bytes;
  bytes << in.rdbuf();
  if (in.bad()) {
    *error = path + ": read failed";
    return false;
  }
  *text = bytes.str();
  return true;
}

bool write_text(const std::string& path, const std::string& text, std::string* error) {
  FILE* out = path == "-" ? stdout : std::fopen(path.c_str(), "we");
  if (out == nullptr) {
    *error = path + ": cannot create";
    return false;
  }
  bool ok = std::fwrite(text.data(), 1, text.size(), out) == text.size();
  if (out != stdout) ok = std::fclose(out) == 0 && ok;
  if (!ok) *error = path + ": write failed";
  return ok;
}

int fail(const std::string& message) {
  std::fprintf(stderr, "gltrace surface: %s\n", message.c_str());
  return kExitFailure;
}

// Reads a trace, saying on stderr when a stream was cut short.
bool load(const std::string& path, surface::Trace* trace, std::string* error) {
  std::string warning;
  if (!surface::read_trace(path, *trace, *error, &warning)) return false;
  if (!warning.empty()) std::fprintf(stderr, "gltrace surface: warning: %s\n", warning.c_str());
  return true;
}

int create(const std::vector<std::string>& args) {
  std::string description, output;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "-o") {
      if (i + 1 >= args.size()) return usage_error(kCommand, "create: -o needs a file");
      output = args[++i];
    } else if (description.empty() && (args[i] == "-" || args[i][0] != '-')) {
      description = args[i];
    } else {
      return usage_error(kCommand, "create: unexpected '" + args[i] + "'");
    }
  }
  if (description.empty() || output.empty())
    return usage_error(kCommand, "create wants DESC.json -o TRACE");
  std::string text, error;
  if (!read_text(description == "-" ? "/dev/stdin" : description, &text, &error))
    return fail(error);
  surface::Trace trace;
  if (!surface::create_trace(text, &trace, &error)) return fail(description + ": " + error);
  if (!surface::write_trace(output, trace, error)) return fail(error);
  std::printf("%s: %d increments\n", output.c_str(), trace.increment_size());
  return kExitOk;
}

int describe(const std::vector<std::string>& args) {
  std::string input, output = "-";
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "-o") {
      if (i + 1 >= args.size()) return usage_error(kCommand, "describe: -o needs a file");
      output = args[++i];
    } else if (input.empty() && args[i][0] != '-') {
      input = args[i];
    } else {
      return usage_error(kCommand, "describe: unexpected '" + args[i] + "'");
    }
  }
  if (input.empty()) return usage_error(kCommand, "describe wants TRACE");
  surface::Trace trace;
  std::string error;
  if (!load(input, &trace, &error)) return fail(error);
  if (!write_text(output, surface::describe_trace(trace), &error)) return fail(error);
  return kExitOk;
}

int convert(const std::vector<std::string>& args) {
  if (args.size() != 3 || args[0] != "--to-trace")
    return usage_error(kCommand, "convert wants --to-trace IN OUT");
  surface::Trace trace;
  std::string error;
  if (!load(args[1], &trace, &error)) return fail(error);
  if (!surface::write_trace(args[2], trace, error)) return fail(error);
  std::printf("%s: %d increments\n", args[2].c_str(), trace.increment_size());
  return kExitOk;
}

int replay(const std::vector<std::string>& args) {
  return surface::run_replay(args, "gltrace surface replay");
}

// record and from-gl take argc/argv with their own name first.
int with_argv(int (*run)(int, char**), const char* name, const std::vector<std::string>& args) {
  std::vector<std::string> words{name};
  words.insert(words.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& word : words) argv.push_back(word.data());
  argv.push_back(nullptr);
  return run(static_cast<int>(words.size()), argv.data());
}

int record(const std::vector<std::string>& args) {
  return with_argv(surface_record_main, "record", args);
}

int from_gl(const std::vector<std::string>& args) {
  return with_argv(surface_from_gl_main, "from-gl", args);
}

struct Subcommand {
  const char* name;
  int (*run)(const std::vector<std::string>& args);
};

constexpr Subcommand kSubcommands[] = {
    {"create", create}, {"describe", describe}, {"convert", convert},
    {"replay", replay}, {"record", record},     {"from-gl", from_gl},
};

}  // namespace

namespace {

int cmd_surface(const CommandLine& line) {
  const std::vector<std::string>& args = line.operands();
  if (args.empty()) return usage_error(kCommand, "missing SUBCOMMAND");
  if (args[0] == "help") {
    line.print_help(stdout);
    return kExitOk;
  }
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  for (const Subcommand& subcommand : kSubcommands)
    if (args[0] == subcommand.name) return subcommand.run(rest);
  std::vector<std::string> names;
  for (const Subcommand& subcommand : kSubcommands) names.emplace_back(subcommand.name);
  return usage_error(kCommand,
                     "unknown subcommand '" + args[0] + "'" + did_you_mean(args[0], names));
}

}  // namespace

void register_surface(Commands& commands) {
  CommandLine& line = commands.add(
      kCommand, "surface traces: record, create, describe, convert, replay them", cmd_surface);
  line.set_operands({"SUBCOMMAND [ARGS...]"});
  line.pass_operands_through();
  line.app().description(
      "Surface traces: what a compositor showed, increment by increment (surfaces,\n"
      "displays, transactions, buffer updates, VSyncs; proto/surface.proto).\n"
      "\n"
      "  create DESC.json -o TRACE     build a trace from a JSON description\n"
      "                                (docs/surface.md: events at times, buffer\n"
      "                                updates and VSyncs at rates)\n"
      "  describe TRACE [-o DESC.json]\n"
      "                                print a trace as that description; create\n"
      "                                gives the same trace back\n"
      "  convert --to-trace IN OUT     a stream of increments (or a plain trace) as\n"
      "                                one plain Trace, which protoc decodes\n"
      "                                (--decode=gltrace.surface.Trace\n"
      "                                proto/surface.proto)\n"
      "  replay [OPTIONS] TRACE        replay and composite it (surfacereplayer; see\n"
      "                                gltrace surface replay -h)\n"
      "  record -o FILE [--contents] -- CLIENT [ARGS...]\n"
      "                                record what a real weston shows while CLIENT\n"
      "                                runs (see gltrace surface record -h)\n"
      "  from-gl -o OUT TRACE.gltrace  a GL trace's window surfaces and swaps as a\n"
      "                                surface trace (see gltrace surface from-gl -h)");
}

}  // namespace gltrace::cli
