// gltrace view's pool of state workers, with real workers (`gltrace replay
// --state-worker`) replaying a trace of the demo on llvmpipe: a backward move
// inside a frame goes on from a worker parked at the frame's first call, not
// from the trace's start; what the pool answers after any moves is what a
// fresh worker answers at that call; a killed worker is replaced; a pool of
// one goes back to the start as the single worker did; a pool ends with a
// background job under way.
#include "view/state_worker_pool.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "support/subprocess.h"
#include "view/trace_model.h"

namespace gltrace::view {
namespace {

using json = nlohmann::json;

struct Demo {
  std::string path;
  TraceModel model;
};

// The demo's trace (8 frames of ~230 calls), indexed by the viewer's model.
Demo& demo() {
  static Demo* const trace = [] {
    // The workers inherit this environment.
    setenv("XDG_RUNTIME_DIR", test::make_temp_dir().c_str(), 1);
    setenv("LP_NUM_THREADS", "0", 1);
    unsetenv("LD_PRELOAD");
    unsetenv("DEBUG_GLES_LAYERS");
    unsetenv("GLTRACE_TRACE_FILE");
    auto* d = new Demo;
    d->path = test::make_temp_dir() + "/demo.gltrace";
    test::ProcessResult r =
        test::run_process({test::build_bin("gltrace"), "trace", "-o", d->path, "--",
                           test::build_bin("gltrace-demo"), "--frames", "8"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::string error;
    EXPECT_TRUE(d->model.open(d->path, &error)) << error;
    d->model.wait_indexed();
    return d;
  }();
  return *trace;
}

std::vector<std::string> worker_command() {
  return {test::build_bin("gltrace"), "replay", "--state-worker"};
}

std::unique_ptr<StateWorkerPool> make_pool(size_t size) {
  Demo& d = demo();
  return std::make_unique<StateWorkerPool>(worker_command(), d.path, size, [&d](uint64_t call) {
    return frame_start_of(d.model, call);
  });
}

FrameInfo frame(uint64_t number) { return demo().model.frame(number); }

// The state after `call` from a pool; the goto's fields in *go.
json state(StateWorkerPool& pool, uint64_t call, json* go) {
  json reply = pool.request_at(call, {{"op", "state"}}, go);
  EXPECT_EQ(reply.value("ok", false), true) << reply.dump();
  reply.erase("id");
  return reply;
}

// The state after `call` as a new worker, replaying from the trace's start,
// says it.
json fresh_state(uint64_t call) {
  WorkerProcess worker(worker_command(), demo().path);
  json go;
  json reply = worker.request_at(call, {{"op", "state"}}, &go);
  EXPECT_EQ(reply.value("ok", false), true) << reply.dump();
  reply.erase("id");
  return reply;
}

json worker_list(StateWorkerPool& pool) { return pool.workers(); }

// Waits until `pid` (a worker, our child) has died: a zombie (until the
// pool reaps it) whose threads are all gone, so that waitpid() sees it.
void wait_dead(pid_t pid) {
  const std::string proc = "/proc/" + std::to_string(pid);
  for (;;) {
    std::ifstream stat(proc + "/stat");
    std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
    size_t paren = text.rfind(") ");
    if (text.empty()) return;
    std::error_code error;
    auto threads = std::distance(std::filesystem::directory_iterator(proc + "/task", error),
                                 std::filesystem::directory_iterator());
    if (paren != std::string::npos && text[paren + 2] == 'Z' && threads <= 1) return;
    usleep(1000);
  }
}

TEST(StateWorkerPool, FrameStartsComeFromTheModel) {
  uint64_t total = 0;
  std::vector<FrameInfo> frames = demo().model.frames(0, 100, &total);
  ASSERT_GE(frames.size(), 8u);
  for (size_t i = 0; i < frames.size(); ++i) {
    EXPECT_EQ(frame_start_of(demo().model, frames[i].first_seq), frames[i].first_seq);
    EXPECT_EQ(frame_start_of(demo().model, frames[i].last_seq), frames[i].first_seq);
    if (i > 0) {
      EXPECT_EQ(frame_start_of(demo().model, frames[i].first_seq - 1), frames[i - 1].first_seq);
    }
  }
  EXPECT_EQ(frame_start_of(demo().model, 0), frames[0].first_seq);
  EXPECT_EQ(frame_start_of(demo().model, UINT64_MAX), frames.back().first_seq);
}

TEST(StateWorkerPool, BackwardInAFrameGoesOnFromTheFrameStart) {
  const FrameInfo f = frame(5);
  const uint64_t call = f.first_seq + f.calls / 2;
  auto pool = make_pool(3);
  json go;
  state(*pool, call, &go);
  EXPECT_TRUE(go["from"].is_null()) << go.dump();  // a new worker
  const uint64_t first_worker = go["worker"];
  pool->wait_idle();
  // Another worker waits at the frame's first call.
  bool parked = false;
  for (const json& w : worker_list(*pool))
    parked = parked || (w["position"] == f.first_seq && w["checkpoint"] == true);
  EXPECT_TRUE(parked) << worker_list(*pool).dump();

  // One call back: from the frame start, not the trace's.
  json back = state(*pool, call - 1, &go);
  EXPECT_NE(go["worker"], first_worker);
  EXPECT_EQ(go["from"], f.first_seq) << go.dump();
  EXPECT_EQ(go["replayed"], call - 1 - f.first_seq);
  EXPECT_EQ(go["restarted"], false);
  EXPECT_EQ(go["checkpoint"], true);
  EXPECT_EQ(back, fresh_state(call - 1));

  // Again, to an earlier call of the frame: a worker was parked there anew.
  pool->wait_idle();
  state(*pool, f.first_seq + 1, &go);
  EXPECT_EQ(go["from"], f.first_seq) << go.dump();
  EXPECT_EQ(go["replayed"], 1);
  EXPECT_EQ(go["checkpoint"], true);

  // Forward goes on from the nearest worker before the call.
  pool->wait_idle();
  uint64_t nearest = 0;
  for (const json& w : worker_list(*pool))
    if (w["position"].is_number() && w["position"] <= call + 1)
      nearest = std::max(nearest, w["position"].get<uint64_t>());
  state(*pool, call + 1, &go);
  EXPECT_EQ(go["from"], nearest) << go.dump();
  EXPECT_EQ(go["replayed"], call + 1 - nearest);
}

TEST(StateWorkerPool, StateAfterAnyMovesIsAFreshWorkersState) {
  const FrameInfo f3 = frame(3), f6 = frame(6);
  const uint64_t in3 = f3.first_seq + f3.calls / 2, in6 = f6.first_seq + f6.calls / 3;
  // Without waiting for the background jobs: requests take their workers
  // over, or stop them, on the way.
  auto pool = make_pool(3);
  json go;
  for (uint64_t call : {in6, in6 - 1, in3, f6.first_seq, in6 + 2, in3 - 2, f3.first_seq + 1}) {
    SCOPED_TRACE("call " + std::to_string(call));
    EXPECT_EQ(state(*pool, call, &go), fresh_state(call)) << go.dump();
  }
}

TEST(StateWorkerPool, AKilledWorkerIsReplaced) {
  const FrameInfo f = frame(4);
  const uint64_t call = f.first_seq + f.calls / 2;
  auto pool = make_pool(3);
  json go;
  state(*pool, call, &go);
  pool->wait_idle();
  pid_t checkpoint = -1;
  for (const json& w : worker_list(*pool))
    if (w["checkpoint"] == true && w["position"] == f.first_seq) checkpoint = w["pid"].get<pid_t>();
  ASSERT_GT(checkpoint, 0) << worker_list(*pool).dump();
  ASSERT_EQ(kill(checkpoint, SIGKILL), 0);
  wait_dead(checkpoint);

  // Its checkpoint is gone: from an earlier one, or the start.
  EXPECT_EQ(state(*pool, call - 1, &go), fresh_state(call - 1));
  EXPECT_TRUE(go["from"].is_null() || go["from"] < f.first_seq) << go.dump();
  for (const json& w : worker_list(*pool)) EXPECT_NE(w["pid"], checkpoint);
  // And the pool goes on making checkpoints.
  pool->wait_idle();
  state(*pool, call - 2, &go);
  EXPECT_EQ(go["from"], f.first_seq) << go.dump();
}

TEST(StateWorkerPool, ThePreviousFrameStartIsKeptToo) {
  const FrameInfo f4 = frame(4), f5 = frame(5);
  const uint64_t call = f5.first_seq + f5.calls / 2;
  auto pool = make_pool(3);
  json go;
  state(*pool, call, &go);
  pool->wait_idle();
  // To the previous frame: from its first call.
  const uint64_t back = f4.first_seq + f4.calls / 2;
  EXPECT_EQ(state(*pool, back, &go), fresh_state(back));
  EXPECT_EQ(go["from"], f4.first_seq) << go.dump();
  EXPECT_EQ(go["checkpoint"], true);
  // Forward again, frame by frame: the previous frame's start follows.
  for (uint64_t n = 5; n < 8; ++n) {
    pool->wait_idle();
    state(*pool, frame(n).first_seq + 7, &go);
    pool->wait_idle();
    for (const json& w : worker_list(*pool)) EXPECT_FALSE(w["position"].is_null()) << w.dump();
    state(*pool, frame(n - 1).first_seq + 3, &go);
    EXPECT_EQ(go["from"], frame(n - 1).first_seq) << "frame " << n << ": " << go.dump();
    state(*pool, frame(n).first_seq + 7, &go);
  }
}

TEST(StateWorkerPool, OneWorkerGoesBackToTheTracesStart) {
  const FrameInfo f = frame(5);
  const uint64_t call = f.first_seq + f.calls / 2;
  auto pool = make_pool(1);
  json go;
  state(*pool, call, &go);
  pool->wait_idle();
  json back = state(*pool, call - 1, &go);
  EXPECT_EQ(go["worker"], 0);
  EXPECT_EQ(go["restarted"], true);
  EXPECT_TRUE(go["from"].is_null());
  EXPECT_EQ(go["replayed"], call - frame(0).first_seq);  // every call up to call - 1
  EXPECT_EQ(back, fresh_state(call - 1));
  json workers = worker_list(*pool);
  ASSERT_EQ(workers.size(), 1u);
  EXPECT_TRUE(workers[0]["job"].is_null());
  EXPECT_EQ(workers[0]["position"], call - 1);
}

TEST(StateWorkerPool, EndsWithAJobUnderWayAndLeavesNoWorker) {
  const FrameInfo f = frame(7);
  auto pool = make_pool(3);
  json go;
  state(*pool, f.first_seq + 3, &go);
  std::vector<pid_t> pids;
  for (const json& w : worker_list(*pool))
    if (w["pid"].is_number()) pids.push_back(w["pid"].get<pid_t>());
  pool.reset();
  for (pid_t pid : pids) EXPECT_TRUE(kill(pid, 0) != 0 && errno == ESRCH) << pid;
}

}  // namespace
}  // namespace gltrace::view
