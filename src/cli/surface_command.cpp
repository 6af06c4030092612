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

// Each subcommand has a command line of its own, as every command:
// "gltrace surface NAME", its help by `gltrace surface NAME --help`.
std::string subcommand_program(const char* subcommand) {
  return std::string("gltrace surface ") + subcommand;
}

struct SubcommandLine : CommandLine {
  explicit SubcommandLine(const char* name)
      : CommandLine(subcommand_program(name), subcommand_program(name) + " --help") {}
};

int create(const std::vector<std::string>& args) {
  std::string description, output;
  SubcommandLine line("create");
  line.app().description(
      "Builds a surface trace from a JSON description (docs/surface.md): events at\n"
      "times, buffer updates and VSyncs at rates.");
  line.app()
      .add_option("-o,--output", output, "the surface trace to write")
      ->type_name("TRACE")
      ->required();
  line.app().add_option("DESC", description, "the description (JSON; - reads stdin)")->required();
  if (std::optional<int> status = line.parse(args)) return *status;
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
  SubcommandLine line("describe");
  line.app().description(
      "Prints a surface trace as the JSON description `gltrace surface create` reads;\n"
      "create gives the same trace back.");
  line.app()
      .add_option("-o,--output", output, "where to write it (default: stdout)")
      ->type_name("FILE");
  line.app().add_option("TRACE", input, "the surface trace")->required();
  if (std::optional<int> status = line.parse(args)) return *status;
  surface::Trace trace;
  std::string error;
  if (!load(input, &trace, &error)) return fail(error);
  if (!write_text(output, surface::describe_trace(trace), &error)) return fail(error);
  return kExitOk;
}

int convert(const std::vector<std::string>& args) {
  std::string input, output;
  bool to_trace = false;
  SubcommandLine line("convert");
  line.app().description(
      "Writes a stream of increments (or a plain trace) as one plain Trace, which\n"
      "protoc decodes (--decode=gltrace.surface.Trace proto/surface.proto).");
  line.app()
      .add_flag("--to-trace", to_trace, "to one plain gltrace.surface.Trace (the only conversion)")
      ->required();
  line.app().add_option("IN", input, "the surface trace or stream")->required();
  line.app().add_option("OUT", output, "the plain trace to write")->required();
  if (std::optional<int> status = line.parse(args)) return *status;
  surface::Trace trace;
  std::string error;
  if (!load(input, &trace, &error)) return fail(error);
  if (!surface::write_trace(output, trace, error)) return fail(error);
  std::printf("%s: %d increments\n", output.c_str(), trace.increment_size());
  return kExitOk;
}

int replay(const std::vector<std::string>& args) {
  return surface::run_replay(args, subcommand_program("replay"));
}

struct Subcommand {
  const char* name;
  int (*run)(const std::vector<std::string>& args);
};

constexpr Subcommand kSubcommands[] = {
    {"create", create}, {"describe", describe},     {"convert", convert},
    {"replay", replay}, {"record", surface_record}, {"from-gl", surface_from_gl},
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
