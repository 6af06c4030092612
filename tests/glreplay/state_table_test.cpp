// The state table's setters (spec/gles_state.json, "setters"): what a
// snapshot's context pass writes back. Codegen refuses a table that breaks
// these rules; this checks the generated data says what the spec meant.
#include "glstate/state_table.h"

#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <string>

#include "gltrace/api/functions.h"

namespace gltrace::test {
namespace {

using glstate::SetterArg;
using glstate::StateEntry;
using glstate::StateGroup;
using glstate::StateQuery;
using glstate::StateSet;
using glstate::StateSetter;

std::string function_name(uint32_t function) {
  if (function >= api::kFunctionIdLimit || api::kFunctionInfo[function].name == nullptr)
    return "function " + std::to_string(function);
  return api::kFunctionInfo[function].name;
}

TEST(StateTable, EveryPipelineEntryIsEnabledSetByOneSetterOrLeftAlone) {
  auto table = glstate::state_table();
  // entry index -> how many setters name it
  std::map<size_t, int> named;
  for (const StateSetter& setter : glstate::state_setters()) {
    const SetterArg* args = setter.args.data();
    for (size_t i = 0; i < setter.args.size(); ++i) {
      if (args[i].kind != SetterArg::kEntry) continue;
      ASSERT_LT(args[i].entry, table.size()) << function_name(setter.function);
      const StateEntry& e = table[args[i].entry];
      // An entry's components come in order, from its first.
      if (args[i].component == 0) {
        ++named[args[i].entry];
        ASSERT_LE(i + e.count, setter.args.size()) << e.key;
        for (uint8_t c = 0; c < e.count; ++c) {
          EXPECT_EQ(args[i + c].kind, SetterArg::kEntry) << e.key;
          EXPECT_EQ(args[i + c].entry, args[i].entry) << e.key;
          EXPECT_EQ(args[i + c].component, c) << e.key;
        }
      }
    }
  }
  for (size_t i = 0; i < table.size(); ++i) {
    const StateEntry& e = table[i];
    int setters = named.count(i) != 0 ? named[i] : 0;
    if (e.group != StateGroup::kPipeline) {
      EXPECT_EQ(e.set_by, StateSet::kNotByContext) << e.key;
      EXPECT_EQ(setters, 0) << e.key;
      continue;
    }
    switch (e.set_by) {
      case StateSet::kEnable:
        EXPECT_EQ(e.query, StateQuery::kEnabled) << e.key;
        EXPECT_EQ(setters, 0) << e.key;
        break;
      case StateSet::kSetter:
        EXPECT_NE(e.query, StateQuery::kEnabled) << e.key;
        EXPECT_EQ(setters, 1) << e.key;
        break;
      case StateSet::kNotByContext:
        EXPECT_EQ(setters, 0) << e.key;
        break;
    }
  }
}

TEST(StateTable, ReadBufferIsLeftToTheFramebuffer) {
  int found = 0;
  for (const StateEntry& e : glstate::state_table()) {
    if (e.group != StateGroup::kPipeline || strcmp(e.key, "read_buffer") != 0) continue;
    ++found;
    EXPECT_EQ(e.set_by, StateSet::kNotByContext);
  }
  EXPECT_EQ(found, 1);
}

TEST(StateTable, EachSetterFillsItsFunctionsParameters) {
  auto table = glstate::state_table();
  ASSERT_FALSE(glstate::state_setters().empty());
  for (const StateSetter& setter : glstate::state_setters()) {
    ASSERT_LT(setter.function, api::kFunctionIdLimit);
    const api::FunctionInfo& info = api::kFunctionInfo[setter.function];
    ASSERT_NE(info.name, nullptr) << "function " << setter.function;
    EXPECT_EQ(info.api, api::Api::kGles) << info.name;
    ASSERT_EQ(setter.args.size(), info.param_count) << info.name;
    const StateEntry* first = nullptr;
    for (size_t i = 0; i < setter.args.size(); ++i) {
      const SetterArg& arg = setter.args[i];
      bool float_param = strcmp(info.params[i].type, "GLfloat") == 0;
      if (arg.kind == SetterArg::kConstant) {
        EXPECT_FALSE(float_param) << info.name << " parameter " << i;
        continue;
      }
      const StateEntry& e = table[arg.entry];
      EXPECT_EQ(float_param, e.kind == glstate::StateKind::kFloat)
          << info.name << " parameter " << i << ": " << e.key;
      if (first == nullptr) first = &e;
      // One setter, one since: the context has all its entries or none.
      EXPECT_EQ(e.major, first->major) << info.name;
      EXPECT_EQ(e.minor, first->minor) << info.name;
    }
    EXPECT_NE(first, nullptr) << info.name << " sets no entry";
  }
}

TEST(StateTable, StencilSettersNameTheirFace) {
  auto table = glstate::state_table();
  std::map<uint32_t, std::string> faces;  // constant -> the func entry it sets
  for (const StateSetter& setter : glstate::state_setters()) {
    if (setter.function != api::kFn_glStencilFuncSeparate) continue;
    ASSERT_EQ(setter.args.size(), 4u);
    ASSERT_EQ(setter.args[0].kind, SetterArg::kConstant);
    ASSERT_EQ(setter.args[1].kind, SetterArg::kEntry);
    faces[setter.args[0].constant] = table[setter.args[1].entry].key;
  }
  EXPECT_EQ(faces[0x0404 /* GL_FRONT */], "stencil_func");
  EXPECT_EQ(faces[0x0405 /* GL_BACK */], "stencil_back_func");
}

}  // namespace
}  // namespace gltrace::test
