// Per-increment cost of the replay engine itself, without GL: a source of
// empty increments read ahead on its own thread (as glreplay's is), and an
// executor that does nothing, replayed as fast as possible on the main
// thread (glreplay's configuration), against the same increments taken from
// the source and run in a plain loop.
//
//   gltrace-bench-engine [--increments N] [--reps R]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "replay/read_ahead_source.h"
#include "replay/replayer.h"

namespace {

using namespace gltrace::replay;

// Made in place and never freed, as glreplay's calls are made in memory of
// their own: no allocator cost is measured here.
struct Empty : IncrementPayload {
  void destroy() override {}
};

class CountingSource : public IncrementSource {
 public:
  explicit CountingSource(uint64_t count) : count_(count) {}
  SourceResult next(Increment* out, std::string* /*error*/) override {
    if (next_ == count_) return SourceResult::kEnd;
    out->index = next_;
    out->timestamp_ns = next_ * 1000;
    out->ends_frame = next_ % 256 == 255;
    out->payload.reset(&empty_);
    ++next_;
    return SourceResult::kIncrement;
  }

 private:
  uint64_t count_;
  uint64_t next_ = 0;
  Empty empty_;
};

class NullExecutor : public Executor {
 public:
  bool execute(Increment& increment, std::string* /*error*/) override {
    sum_ += increment.index;
    return true;
  }
  uint64_t sum_ = 0;
};

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

template <bool kReadAhead>
double plain_loop(uint64_t n) {
  CountingSource inner(n);
  ReadAheadSource read_ahead(inner);
  IncrementSource& source = kReadAhead ? static_cast<IncrementSource&>(read_ahead) : inner;
  NullExecutor executor;
  auto start = std::chrono::steady_clock::now();
  Increment increment;
  std::string error;
  while (source.next(&increment, &error) == SourceResult::kIncrement) {
    executor.execute(increment, &error);
    increment.payload.reset();
  }
  return seconds_since(start);
}

double replayer(uint64_t n) {
  CountingSource inner(n);
  ReadAheadSource source(inner);
  NullExecutor executor;
  ReplayOptions options;
  options.threads = 0;
  options.wait = false;
  options.execute_on = ExecuteOn::kTargetThreadInOrder;
  Replayer replay(source, executor, options);
  auto start = std::chrono::steady_clock::now();
  ReplayStatus status = replay.replay();
  double elapsed = seconds_since(start);
  if (!status.ok()) {
    fprintf(stderr, "replay failed: %s\n", status.message.c_str());
    exit(1);
  }
  return elapsed;
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t n = 2000000;
  int reps = 5;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (strcmp(argv[i], "--increments") == 0) n = strtoull(argv[i + 1], nullptr, 10);
    if (strcmp(argv[i], "--reps") == 0) reps = atoi(argv[i + 1]);
  }
  double best_inline = 1e9, best_plain = 1e9, best_replay = 1e9;
  for (int r = 0; r < reps; ++r) {
    best_inline = std::min(best_inline, plain_loop<false>(n));
    best_plain = std::min(best_plain, plain_loop<true>(n));
    best_replay = std::min(best_replay, replayer(n));
  }
  double ns = 1e9 / static_cast<double>(n);
  printf(
      "%"
      "llu"
      " increments, best of %d\n",
      static_cast<unsigned long long>(n), reps);
  printf("  plain loop                %7.1f ns/increment\n", best_inline * ns);
  printf("  read ahead + plain loop   %7.1f ns/increment\n", best_plain * ns);
  printf("  read ahead + Replayer     %7.1f ns/increment (engine: %+.1f)\n", best_replay * ns,
         (best_replay - best_plain) * ns);
  return 0;
}
