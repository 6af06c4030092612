// schema.h must mirror proto/trace.proto: both files are parsed and every
// field of every message must have its constant, with the same number, and
// no constant may name a field the proto does not have.
#include "format/schema.h"

#include <gtest/gtest.h>

#include <cctype>
#include <map>
#include <regex>
#include <sstream>

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

// "start_time_ns" -> "kStartTimeNs"
std::string constant_name(const std::string& field) {
  std::string out = "k";
  bool upper = true;
  for (char c : field) {
    if (c == '_') {
      upper = true;
    } else {
      out += upper ? static_cast<char>(toupper(static_cast<unsigned char>(c))) : c;
      upper = false;
    }
  }
  return out;
}

using Fields = std::map<std::string, uint32_t>;  // "namespace::kConstant" -> number

Fields parse_proto(const std::string& text) {
  Fields fields;
  std::istringstream in(text);
  std::string line;
  std::string message;
  int depth = 0;
  const std::regex message_re(R"(^\s*message\s+(\w+)\s*\{)");
  const std::regex field_re(R"(^\s*(?:repeated\s+|optional\s+)?[\w.]+\s+(\w+)\s*=\s*(\d+)\b)");
  std::smatch m;
  while (std::getline(in, line)) {
    line = line.substr(0, line.find("//"));
    if (std::regex_search(line, m, message_re)) {
      EXPECT_EQ(depth, 0) << "nested messages are not mirrored: " << line;
      message = m[1];
    } else if (depth > 0 && std::regex_search(line, m, field_re)) {
      fields[snake_case(message) + "::" + constant_name(m[1])] =
          static_cast<uint32_t>(std::stoul(m[2]));
    }
    for (char c : line) depth += c == '{' ? 1 : c == '}' ? -1 : 0;
  }
  return fields;
}

Fields parse_schema_header(const std::string& text) {
  Fields fields;
  std::istringstream in(text);
  std::string line;
  std::string ns;
  const std::regex ns_re(R"(^namespace (\w+) \{)");
  const std::regex constant_re(R"(^inline constexpr uint32_t (k\w+) = (\d+);)");
  std::smatch m;
  while (std::getline(in, line)) {
    if (std::regex_search(line, m, ns_re)) {
      ns = m[1];
    } else if (std::regex_search(line, m, constant_re)) {
      EXPECT_FALSE(ns.empty()) << line;
      fields[ns + "::" + std::string(m[1])] = static_cast<uint32_t>(std::stoul(m[2]));
    } else if (line.find("constexpr") != std::string::npos) {
      ADD_FAILURE() << "schema.h line not in the expected form: " << line;
    }
  }
  return fields;
}

TEST(Schema, MirrorsTheProto) {
  Fields proto = parse_proto(test::read_text_file(test::source_path("proto/trace.proto")));
  Fields header =
      parse_schema_header(test::read_text_file(test::source_path("src/format/schema.h")));
  ASSERT_GT(proto.size(), 50u);
  for (const auto& [name, number] : proto) {
    auto it = header.find(name);
    if (it == header.end()) {
      ADD_FAILURE() << "schema.h lacks " << name << " = " << number;
    } else {
      EXPECT_EQ(it->second, number) << name;
    }
  }
  for (const auto& [name, number] : header)
    EXPECT_TRUE(proto.count(name) != 0) << "schema.h has " << name << ", the proto does not";
}

// The control protocol's field numbers (src/control/schema.h), the same way.
TEST(Schema, ControlSchemaMirrorsTheProto) {
  Fields proto = parse_proto(test::read_text_file(test::source_path("proto/control.proto")));
  Fields header =
      parse_schema_header(test::read_text_file(test::source_path("src/control/schema.h")));
  ASSERT_GT(proto.size(), 20u);
  for (const auto& [name, number] : proto) {
    auto it = header.find(name);
    if (it == header.end()) {
      ADD_FAILURE() << "control/schema.h lacks " << name << " = " << number;
    } else {
      EXPECT_EQ(it->second, number) << name;
    }
  }
  for (const auto& [name, number] : header)
    EXPECT_TRUE(proto.count(name) != 0)
        << "control/schema.h has " << name << ", the proto does not";
}

// The parsed text is what the compiler sees.
TEST(Schema, ParsedNumbersAreTheCompiledOnes) {
  Fields proto = parse_proto(test::read_text_file(test::source_path("proto/trace.proto")));
  EXPECT_EQ(proto["record::kCall"], schema::record::kCall);
  EXPECT_EQ(proto["call::kSeq"], schema::call::kSeq);
  EXPECT_EQ(proto["value::kArray"], schema::value::kArray);
  EXPECT_EQ(proto["index_entry::kChunkOffset"], schema::index_entry::kChunkOffset);
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
  Fields proto = parse_proto(test::read_text_file(test::source_path("proto/trace.proto")));
  size_t value_fields = 0;
  for (const auto& [name, number] : proto) value_fields += name.rfind("value::", 0) == 0 ? 1 : 0;
  EXPECT_EQ(value_fields, std::size(kinds)) << "a new Value kind needs a ValueKind";
}

}  // namespace
}  // namespace gltrace
