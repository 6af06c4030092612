// The generated schema headers (codegen/gltrace_codegen/proto.py) against
// protoc's own reading of the same .proto files: a field the generator's
// proto3 subset misreads or drops (behind a comment, in a oneof, in a nested
// message) shows up as a constant missing, extra or numbered differently.
#include "format/schema.h"

#include <gtest/gtest.h>

#include <cctype>
#include <map>
#include <memory>
#include <regex>
#include <sstream>
#include <vector>

#include "control/schema.h"
#include "format/records.h"
#include "support/subprocess.h"

namespace gltrace {
namespace {

// "IndexEntry" -> "index_entry"
std::string snake_case(const std::string& name) {
  std::string out;
  for (char c : name) {
    if (isupper(static_cast<unsigned char>(c)) != 0) {
      if (!out.empty()) out += '_';
      out += static_cast<char>(tolower(static_cast<unsigned char>(c)));
    } else {
      out += c;
    }
  }
  return out;
}

// "start_time_ns" -> "kStartTimeNs"; enum values: "MODE_FULL" -> "kModeFull"
std::string constant_name(const std::string& name, bool enum_value) {
  std::string out = "k";
  bool upper = true;
  for (char c : name) {
    auto u = static_cast<unsigned char>(c);
    if (c == '_') {
      upper = true;
    } else {
      char lower = enum_value ? static_cast<char>(tolower(u)) : c;
      out += upper ? static_cast<char>(toupper(u)) : lower;
      upper = false;
    }
  }
  return out;
}

// protoc's text format of a FileDescriptorSet: "key {" ... "}" and "key: value" lines.
struct Node {
  std::map<std::string, std::string> values;  // the last one of a key is enough here
  std::vector<std::pair<std::string, std::unique_ptr<Node>>> children;
  std::vector<const Node*> all(const std::string& key) const {
    std::vector<const Node*> out;
    for (const auto& [k, child] : children)
      if (k == key) out.push_back(child.get());
    return out;
  }
};

std::unique_ptr<Node> parse_text_format(const std::string& text) {
  auto root = std::make_unique<Node>();
  std::vector<Node*> stack{root.get()};
  std::istringstream in(text);
  std::string line;
  const std::regex open_re(R"(^\s*(\w+) \{$)");
  const std::regex value_re(R"re(^\s*(\w+): "?([^"]*)"?$)re");
  std::smatch m;
  while (std::getline(in, line)) {
    if (std::regex_match(line, m, open_re)) {
      auto child = std::make_unique<Node>();
      Node* raw = child.get();
      stack.back()->children.emplace_back(m[1], std::move(child));
      stack.push_back(raw);
    } else if (line.find_first_not_of(' ') != std::string::npos &&
               line.substr(line.find_first_not_of(' ')) == "}") {
      EXPECT_GT(stack.size(), 1u);
      if (stack.size() > 1) stack.pop_back();
    } else if (std::regex_match(line, m, value_re)) {
      stack.back()->values[m[1]] = m[2];
    } else {
      ADD_FAILURE() << "unexpected protoc output line: " << line;
    }
  }
  return root;
}

using Constants = std::map<std::string, int64_t>;  // "ns::ns::kName" -> number

void collect(const Node& message, const std::string& prefix, Constants* out) {
  std::string ns = prefix + snake_case(message.values.at("name")) + "::";
  for (const Node* field : message.all("field"))
    (*out)[ns + constant_name(field->values.at("name"), false)] =
        std::stoll(field->values.at("number"));
  for (const Node* nested : message.all("nested_type")) collect(*nested, ns, out);
  for (const Node* e : message.all("enum_type")) {
    std::string enum_ns = ns + snake_case(e->values.at("name")) + "::";
    for (const Node* v : e->all("value"))
      (*out)[enum_ns + constant_name(v->values.at("name"), true)] =
          std::stoll(v->values.at("number"));
  }
}

// What protoc reads in proto/NAME, named the way the generated header names it.
Constants protoc_constants(const std::string& name, const std::string& outer_ns) {
  std::string dir = test::make_temp_dir();
  std::string proto_dir = test::source_path("proto");
  std::string protoc = GLTRACE_PROTOC;
  std::string set_path = dir + "/set.bin";
  std::string command = protoc + " --descriptor_set_out=" + set_path + " -I " + proto_dir + " " +
                        proto_dir + "/" + name + " && " + protoc +
                        " --decode=google.protobuf.FileDescriptorSet" +
                        " google/protobuf/descriptor.proto < " + set_path;
  test::ProcessResult r = test::run_process({"/bin/sh", "-c", command});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::unique_ptr<Node> set = parse_text_format(r.out);
  Constants out;
  std::vector<const Node*> files = set->all("file");
  EXPECT_EQ(files.size(), 1u) << r.out;
  for (const Node* file : files) {
    for (const Node* message : file->all("message_type")) collect(*message, outer_ns, &out);
    for (const Node* e : file->all("enum_type")) {
      std::string enum_ns = outer_ns + snake_case(e->values.at("name")) + "::";
      for (const Node* v : e->all("value"))
        out[enum_ns + constant_name(v->values.at("name"), true)] =
            std::stoll(v->values.at("number"));
    }
  }
  return out;
}

// The generated header's text, by nesting of its namespaces.
Constants header_constants(const std::string& path) {
  Constants out;
  std::istringstream in(test::read_text_file(path));
  std::string line;
  std::vector<std::string> namespaces;
  const std::regex open_re(R"(^namespace ([\w:]+) \{$)");
  const std::regex close_re(R"(^\}  // namespace ([\w:]+)$)");
  const std::regex constant_re(R"(^inline constexpr u?int32_t (k\w+) = (-?\d+);$)");
  std::smatch m;
  while (std::getline(in, line)) {
    if (std::regex_match(line, m, open_re)) {
      namespaces.push_back(m[1]);
    } else if (std::regex_match(line, m, close_re)) {
      EXPECT_TRUE(!namespaces.empty() && namespaces.back() == m[1]) << line;
      if (!namespaces.empty()) namespaces.pop_back();
    } else if (std::regex_match(line, m, constant_re)) {
      std::string ns;
      for (const auto& n : namespaces) ns += n + "::";
      out[ns + std::string(m[1])] = std::stoll(m[2]);
    } else if (line.find("constexpr") != std::string::npos) {
      ADD_FAILURE() << path << ": line not in the expected form: " << line;
    }
  }
  EXPECT_TRUE(namespaces.empty()) << path;
  return out;
}

void expect_same(const Constants& protoc, const Constants& header, const std::string& what) {
  for (const auto& [name, number] : protoc) {
    auto it = header.find(name);
    if (it == header.end()) {
      ADD_FAILURE() << what << " lacks " << name << " = " << number;
    } else {
      EXPECT_EQ(it->second, number) << name;
    }
  }
  for (const auto& [name, number] : header)
    EXPECT_TRUE(protoc.count(name) != 0) << what << " has " << name << ", protoc does not";
}

bool have_protoc() { return !std::string(GLTRACE_PROTOC).empty(); }

TEST(Schema, TraceHeaderMatchesProtoc) {
  if (!have_protoc()) GTEST_SKIP() << "protoc not found";
  Constants protoc = protoc_constants("trace.proto", "gltrace::schema::");
  Constants header = header_constants(GLTRACE_TRACE_SCHEMA_H);
  ASSERT_GT(protoc.size(), 50u);
  expect_same(protoc, header, "format/schema.h");
  // The file read is the one compiled.
  EXPECT_EQ(header["gltrace::schema::record::kCall"], schema::record::kCall);
  EXPECT_EQ(header["gltrace::schema::index_entry::kChunkOffset"],
            schema::index_entry::kChunkOffset);
}

TEST(Schema, ControlHeaderMatchesProtoc) {
  if (!have_protoc()) GTEST_SKIP() << "protoc not found";
  Constants protoc = protoc_constants("control.proto", "gltrace::control::schema::");
  Constants header = header_constants(GLTRACE_CONTROL_SCHEMA_H);
  ASSERT_GT(protoc.size(), 20u);
  expect_same(protoc, header, "control/schema.h");
  EXPECT_EQ(header["gltrace::control::schema::request::kDataChannel"],
            control::schema::request::kDataChannel);
}

TEST(Schema, ValueKindsAreTheOneofFieldNumbers) {
  using format::ValueKind;
  const std::pair<ValueKind, uint32_t> kinds[] = {
      {ValueKind::kSint, schema::value::kSint},
      {ValueKind::kUint, schema::value::kUint},
      {ValueKind::kF32, schema::value::kF32},
      {ValueKind::kF64, schema::value::kF64},
      {ValueKind::kPointer, schema::value::kPointer},
      {ValueKind::kData, schema::value::kData},
      {ValueKind::kBlob, schema::value::kBlob},
      {ValueKind::kText, schema::value::kText},
      {ValueKind::kUnknown, schema::value::kUnknown},
      {ValueKind::kStrings, schema::value::kStrings},
      {ValueKind::kArray, schema::value::kArray},
  };
  for (auto [kind, field] : kinds) EXPECT_EQ(static_cast<uint32_t>(kind), field);
  Constants header = header_constants(GLTRACE_TRACE_SCHEMA_H);
  size_t value_fields = 0;
  for (const auto& [name, number] : header)
    value_fields += name.rfind("gltrace::schema::value::", 0) == 0 ? 1 : 0;
  EXPECT_EQ(value_fields, std::size(kinds)) << "a new Value kind needs a ValueKind";
}

}  // namespace
}  // namespace gltrace
