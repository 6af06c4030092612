// The generated API model and what libgltrace.so exports.
#include <gtest/gtest.h>

#include <set>
#include <sstream>

#include "gltrace/api/functions.h"
#include "support/subprocess.h"

namespace gltrace {
namespace {

using api::kFunctionIdLimit;
using api::kFunctionInfo;

TEST(ApiModel, EveryFunctionIsFoundByName) {
  size_t count = 0;
  for (uint32_t id = 0; id < kFunctionIdLimit; ++id) {
    if (kFunctionInfo[id].name == nullptr) continue;
    ++count;
    EXPECT_EQ(api::find_function(kFunctionInfo[id].name), id) << kFunctionInfo[id].name;
  }
  EXPECT_EQ(count, api::kFunctionCount);
  EXPECT_EQ(api::find_function("glNoSuchFunction"), api::kInvalidFunction);
  EXPECT_EQ(api::find_function(""), api::kInvalidFunction);
}

TEST(ApiModel, CoversEglAndEveryGlesVersion) {
  for (const char* name : {"eglQueryString", "eglGetProcAddress", "eglCreatePlatformWindowSurface",
                           "eglCreateImageKHR", "glAlphaFunc", "glDrawArrays",
                           "glDrawArraysInstanced", "glDispatchCompute", "glDrawElementsBaseVertex",
                           "glDebugMessageCallbackKHR", "glEGLImageTargetTexture2DOES"})
    EXPECT_NE(api::find_function(name), api::kInvalidFunction) << name;
}

TEST(ApiModel, ParameterDescriptionsComeFromTheRegistry) {
  const api::FunctionInfo& f = kFunctionInfo[api::kFn_glShaderSource];
  ASSERT_EQ(f.param_count, 4u);
  EXPECT_STREQ(f.params[2].name, "string");
  EXPECT_STREQ(f.params[2].type, "const GLchar *const*");
  EXPECT_STREQ(f.params[2].len, "count");
  EXPECT_STREQ(f.params[0].cls, "shader");
  const api::FunctionInfo& q = kFunctionInfo[api::kFn_eglQueryString];
  EXPECT_STREQ(q.ret, "const char *");
  EXPECT_EQ(q.api, api::Api::kEgl);
  EXPECT_STREQ(kFunctionInfo[api::kFn_eglChooseConfig].params[1].len, "EGL_NONE-terminated");
}

TEST(Interposer, ExportsExactlyTheModelAndDlopen) {
  test::ProcessResult r =
      test::run_process({"/usr/bin/nm", "-D", "--defined-only", test::build_lib("libgltrace.so")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::set<std::string> exported;
  std::istringstream in(r.out);
  for (std::string line; std::getline(in, line);) exported.insert(line.substr(line.rfind(' ') + 1));
  exported.erase("");
  // And the command line read before main (common/process.h), for the trace layer.
  std::set<std::string> expected = {"dlopen", "gltrace_command_line_at_load"};
  for (uint32_t id = 0; id < kFunctionIdLimit; ++id)
    if (kFunctionInfo[id].name != nullptr) expected.insert(kFunctionInfo[id].name);
  EXPECT_EQ(exported, expected);
}

TEST(Interposer, WhatAppsSeeOfIt) {
  test::ProcessResult r = test::run_process(
      {test::build_bin("dispatch_probe")},
      {{"LD_PRELOAD", test::build_lib("libgltrace.so")}, {"DEBUG_GLES_LAYERS", std::nullopt}});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("dispatch probe: OK"), std::string::npos) << r.out << r.err;
  // The missing function is reported once, by name.
  EXPECT_EQ(test::count_occurrences(r.err,
                                    "the app called eglCreateStreamKHR, which the driver "
                                    "does not provide"),
            1u)
      << r.err;
}

}  // namespace
}  // namespace gltrace
