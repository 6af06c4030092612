// gltrace diverge on real traces of the demo (Mesa llvmpipe and softpipe,
// surfaceless). One side runs on llvmpipe; the other runs on llvmpipe
// through gltrace's interposer (--driver DIR) with a layer under the
// replay that changes one call (inject_layer.cpp): a blend factor, a
// framebuffer status answer, a buffer upload. Each must be reported at
// exactly that call: the blend at the state, the status at the results,
// the upload at the first draw that shows it.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>

#include "support/subprocess.h"
#include "support/tools.h"

namespace gltrace::test {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

class Diverge : public ::testing::Test {
 protected:
  void SetUp() override {
    trace_ = env_.dir + "/demo.gltrace";
    ProcessResult r = gltrace(env_, {"trace", "-o", trace_, "--framebuffer", "swap", "--",
                                     build_bin("gltrace-demo"), "--frames", "4"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    ProcessResult dump = gltrace(env_, {"dump", trace_});
    ASSERT_EQ(dump.exit_code, 0) << dump.err;
    dump_ = dump.out;
  }

  // The seq of the nth call (from 1) of `function` in the trace.
  uint64_t nth_call(const std::string& function, int nth) {
    std::regex line("^(\\d+) " + function + "\\(");
    int seen = 0;
    std::istringstream in(dump_);
    for (std::string text; std::getline(in, text);) {
      std::smatch m;
      if (std::regex_search(text, m, line) && ++seen == nth) return std::stoull(m[1]);
    }
    ADD_FAILURE() << "no call " << nth << " of " << function;
    return 0;
  }

  // diverge between llvmpipe and llvmpipe under the inject layer changing
  // `inject` (FUNCTION:N); the JSON report.
  Json diverge_injected(const std::string& inject, ProcessResult* result) {
    EnvChanges vars = env_.vars;
    vars["DEBUG_GLES_LAYERS"] = "libGLES_layer_inject.so";
    vars["GLTRACE_LAYER_PATH"] = GLTRACE_INJECT_LAYER_DIR;
    vars["GLTRACE_INJECT"] = inject;
    std::string json = env_.dir + "/" + inject.substr(0, inject.find(':')) + ".json";
    std::string out = env_.dir + "/" + inject.substr(0, inject.find(':'));
    // One driver on both sides: any difference is the layer's, so exact.
    *result = gltrace({"diverge", trace_, "--driver", "llvmpipe", "--driver", build_lib("dropin"),
                       "--tolerance", "exact", "--json", json, "-o", out},
                      vars);
    std::ifstream in(json);
    return Json::parse(in, nullptr, false);
  }

  IsolatedEnv env_;
  std::string trace_, dump_;
};

TEST_F(Diverge, TheSameDriverTwiceIsTheSame) {
  std::string json = env_.dir + "/same.json";
  ProcessResult r = gltrace(
      env_, {"diverge", trace_, "--driver", "llvmpipe", "--driver", "llvmpipe", "--json", json});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "results: 0 of ")) << r.out;
  EXPECT_TRUE(contains(r.out, "state: the same at every call stepped")) << r.out;
  EXPECT_TRUE(contains(r.out, "frames: 4 identical, 0 within the tolerance, 0 beyond")) << r.out;
  std::ifstream in(json);
  Json report = Json::parse(in, nullptr, false);
  EXPECT_EQ(report["differs"], false) << report.dump(1);
  EXPECT_GT(report["results"]["compared"].get<int>(), 10) << report.dump(1);

  // One driver: its answers and images against the trace's.
  ProcessResult own = gltrace(env_, {"diverge", trace_, "--driver", "llvmpipe"});
  EXPECT_EQ(own.exit_code, 0) << own.out << own.err;
  EXPECT_TRUE(contains(own.out, "against: the trace's recorded answers and images")) << own.out;
  EXPECT_TRUE(contains(own.out, "frames: 4 identical")) << own.out;
}

TEST_F(Diverge, AChangedBlendFactorIsTheFirstStateDifferenceAtItsCall) {
  ProcessResult r;
  Json report = diverge_injected("glBlendFuncSeparate:2", &r);
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_TRUE(contains(r.err, "inject layer: changing glBlendFuncSeparate call 2")) << r.err;
  uint64_t blend = nth_call("glBlendFuncSeparate", 2);
  ASSERT_TRUE(report["state"].is_object()) << r.out;
  EXPECT_EQ(report["state"]["call"], blend) << r.out;
  EXPECT_TRUE(contains(report["state"].dump(), "blend")) << report["state"].dump(1);
  EXPECT_EQ(report["state"]["view"], "gltrace view " + trace_ + " --call " + std::to_string(blend));
  EXPECT_EQ(report["results"]["differing"], 0) << r.out;
  // Frame 1 is the first beyond the tolerance, first at a draw after the blend.
  EXPECT_EQ(report["first_frame"]["frame"], 1) << r.out;
  ASSERT_TRUE(report["draw"].is_object()) << r.out;
  EXPECT_GT(report["draw"]["call"].get<uint64_t>(), blend) << r.out;
  EXPECT_TRUE(fs::exists(env_.dir + "/glBlendFuncSeparate/draw-difference.png"));
}

TEST_F(Diverge, AWrongStatusAnswerIsTheFirstDifferingResultAtItsCall) {
  ProcessResult r;
  Json report = diverge_injected("glCheckFramebufferStatus:1", &r);
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  uint64_t status = nth_call("glCheckFramebufferStatus", 1);
  ASSERT_FALSE(report["results"]["first"].empty()) << r.out;
  const Json& first = report["results"]["first"][0];
  EXPECT_EQ(first["call"], status) << r.out;
  EXPECT_EQ(first["differences"][0],
            "result: A GL_FRAMEBUFFER_COMPLETE, B GL_FRAMEBUFFER_UNSUPPORTED")
      << r.out;
  EXPECT_EQ(report["results"]["differing"], 1) << r.out;
  EXPECT_TRUE(report["state"].is_null()) << r.out;  // nothing else was changed
  EXPECT_EQ(report["frames"]["beyond"], 0) << r.out;
}

TEST_F(Diverge, ACorruptedBufferUploadIsFoundAtItsFirstVisibleDraw) {
  ProcessResult r;
  Json report = diverge_injected("glBufferData:1", &r);
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  // The first upload is the cube's vertices; the first draw of the vertex
  // array that reads them is the first that shows it.
  uint64_t upload = nth_call("glBufferData", 1);
  uint64_t first_cube_draw = nth_call("glDrawElements", 1);
  ASSERT_LT(upload, first_cube_draw);
  // Nothing the app asked before that draw is answered otherwise (its
  // glReadPixels after it is).
  for (const Json& f : report["results"]["first"])
    EXPECT_GT(f["call"].get<uint64_t>(), first_cube_draw) << r.out;
  EXPECT_EQ(report["first_frame"]["frame"], 0) << r.out;
  ASSERT_TRUE(report["draw"].is_object()) << r.out;
  EXPECT_EQ(report["draw"]["call"], first_cube_draw) << r.out;
  EXPECT_TRUE(
      contains(r.out, "gltrace view " + trace_ + " --call " + std::to_string(first_cube_draw)))
      << r.out;
}

TEST_F(Diverge, SoftpipeDiffersFromLlvmpipeOnlyWithinTheToleranceOnTheDemo) {
  ProcessResult r =
      gltrace(env_, {"diverge", trace_, "--driver", "llvmpipe", "--driver", "softpipe"});
  // The demo asks nothing softpipe answers otherwise, and its state is the
  // same; its pixels differ where two rasterizers round differently.
  EXPECT_TRUE(contains(r.out, "results: 0 of ")) << r.out;
  EXPECT_TRUE(contains(r.out, "B: softpipe (softpipe; OpenGL ES 3.1")) << r.out;
}

}  // namespace
}  // namespace gltrace::test
