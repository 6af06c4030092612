#include "glreplay/state_worker.h"

#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <typeinfo>
#include <vector>

#include "glreplay/executor.h"
#include "glreplay/session.h"
#include "glreplay/state_query.h"
#include "glreplay/state_read_back.h"
#include "glreplay/state_reader.h"
#include "glreplay/trace_source.h"
#include "replay/controller.h"

namespace gltrace::glreplay {
namespace {

using json = StateJson;

// Warnings listed in one goto reply; the rest are counted.
constexpr size_t kMaxWarnings = 100;
// A request line longer than this is refused unread (requests are small).
constexpr size_t kMaxRequestLine = size_t{1} << 20;

// What a goto's calls said: the session's messages and the calls that
// failed. Written on the calls' threads, one call at a time.
class Warnings {
 public:
  void clear() {
    std::lock_guard<std::mutex> lock(mutex_);
    lines_.clear();
    more_ = 0;
  }
  // A message: listed, or counted past the limit.
  void add(const std::string& line) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (lines_.size() < kMaxWarnings)
      lines_.push_back(line);
    else
      ++more_;
  }
  // A failed call: listed while there is room.
  void add_failure(const std::string& line) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (lines_.size() < kMaxWarnings) lines_.push_back(line);
  }
  std::vector<std::string> take() {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<std::string> lines = std::move(lines_);
    if (more_ != 0) lines.push_back("... and " + std::to_string(more_) + " more");
    lines_.clear();
    more_ = 0;
    return lines;
  }

 private:
  std::mutex mutex_;
  std::vector<std::string> lines_;
  uint64_t more_ = 0;
};

// The GL executor as the worker runs it: a call that fails is a warning of
// its goto, not the end of the replay (the viewer still shows the state
// there), and the trace's context of each call is noted for the state reply.
class WorkerExecutor : public replay::Executor {
 public:
  WorkerExecutor(GlExecutor& executor, Warnings& warnings)
      : executor_(executor), warnings_(warnings) {}

  bool prepare(replay::Increment& increment, std::string* error) override {
    return executor_.prepare(increment, error);
  }
  bool execute(replay::Increment& increment, std::string* /*error*/) override {
    // The trace's context index of the call (as `gltrace info` lists
    // contexts): the state reply's "context".
    if (increment.payload != nullptr && typeid(*increment.payload) == typeid(ReplayCall))
      context_ = static_cast<const ReplayCall&>(*increment.payload).context;
    std::string error;
    if (!executor_.execute(increment, &error))
      warnings_.add_failure("call " + std::to_string(increment.index) + ": " + error);
    return true;
  }
  std::string describe(uint32_t target) override { return executor_.describe(target); }
  bool restart(std::string* error) override { return executor_.restart(error); }
  void thread_exiting(uint32_t target) override { executor_.thread_exiting(target); }

  // The context of the last call run (read while the replay is parked).
  uint32_t context() const { return context_; }

 private:
  GlExecutor& executor_;
  Warnings& warnings_;
  uint32_t context_ = 0;
};

// The request loop: parses a request, moves the replay, has the state read
// on the parked call's thread, and says what failed.
class StateWorker {
 public:
  StateWorker(TraceSource& source, Session& session, GlExecutor& executor)
      : source_(source),
        session_(session),
        executor_(executor, warnings_),
        controller_(source, executor_, controller_options()) {
    session_.set_message_hook([this](const std::string& line) { warnings_.add(line); });
  }
  StateWorker(const StateWorker&) = delete;
  StateWorker& operator=(const StateWorker&) = delete;

  // One request line; its reply (*bytes: what follows it in a binary
  // frame); *quit set by `quit`.
  json handle(const std::string& line, std::string* bytes, bool* quit) {
    json request = json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (request.is_discarded()) return failure(nullptr, "malformed request: not JSON");
    if (!request.is_object()) return failure(nullptr, "malformed request: not a JSON object");
    auto id = request.find("id");
    if (id == request.end() || !id->is_number_integer())
      return failure(nullptr, "malformed request: no integer \"id\"");
    json reply_id = *id;
    auto op = request.find("op");
    if (op == request.end() || !op->is_string())
      return failure(reply_id, "malformed request: no string \"op\"");
    try {
      json reply = {{"id", reply_id}, {"ok", true}};
      const std::string name = op->get<std::string>();
      bool has_bytes = false;
      if (name == "quit") {
        *quit = true;
      } else if (name == "goto") {
        go_to(request, reply);
      } else if (name == "state") {
        on_current_thread(
            [&] { read_state(session_, *position_, thread_, executor_.context(), reply); });
      } else if (name == "framebuffer") {
        on_current_thread([&] { read_back_framebuffer(session_, *position_, reply, bytes); });
        has_bytes = true;
      } else if (name == "texture") {
        on_current_thread([&] { read_back_texture(session_, *position_, request, reply, bytes); });
        has_bytes = true;
      } else if (name == "buffer") {
        on_current_thread([&] { read_back_buffer(session_, *position_, request, reply, bytes); });
        has_bytes = true;
      } else if (name == "vertices") {
        on_current_thread([&] { read_back_vertices(session_, *position_, request, reply); });
      } else if (name == "shader") {
        on_current_thread([&] { read_shader(session_, *position_, request, reply); });
      } else {
        throw RequestError{"unknown op '" + name + "'"};
      }
      if (has_bytes) reply["bytes"] = bytes->size();
      return reply;
    } catch (const RequestError& e) {
      bytes->clear();
      return failure(reply_id, e.message);
    }
  }

  static json failure(const json& id, const std::string& message) {
    return {{"id", id}, {"ok", false}, {"error", message}};
  }

 private:
  // Call by call as the requests say: no timing, no read-ahead past the
  // next call, each recorded thread's calls on a thread of its own in the
  // recorded order (EGL keeps a current context per thread), no console.
  static replay::ReplayOptions controller_options() {
    replay::ReplayOptions options;
    options.threads = 0;
    options.wait = false;
    options.lookahead = 1;
    options.execute_on = replay::ExecuteOn::kTargetThreadInOrder;
    options.handle_sigint = false;
    return options;
  }

  void go_to(const json& request, json& reply) {
    int64_t target = integer_field(request, "call", true);
    if (target < 0) throw RequestError{"\"call\" is negative"};
    auto call = static_cast<uint64_t>(target);
    auto start = std::chrono::steady_clock::now();
    warnings_.clear();
    uint64_t before = controller_.stats().increments;
    bool restarted = false;
    replay::RunResult result = controller_.run_to(call, &restarted);
    uint64_t replayed = controller_.stats().increments - before;
    double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    replay::Position at = controller_.position();
    position_ = at.last;
    thread_ = at.last_target;
    if (!result.parked()) throw RequestError{result.status.message};
    if (result.stop == replay::RunStop::kEnd &&
        result.status.result == replay::ReplayResult::kSourceError)
      throw RequestError{result.status.message};
    bool short_of_it = !position_ || *position_ < call;
    if (result.stop == replay::RunStop::kEnd && short_of_it && source_.at_written_end())
      throw RequestError{"call " + std::to_string(call) +
                         " is not written yet: the trace holds calls up to " + position_text() +
                         " so far (its capture is still writing it, or was cut short)"};
    if (result.stop == replay::RunStop::kEnd && short_of_it)
      throw RequestError{"call " + std::to_string(call) +
                         " is past the end of the trace (its last call is " + position_text() +
                         ")"};
    // A trace whose capture began mid-run starts past call 0.
    if (!position_ && at.next)
      throw RequestError{"call " + std::to_string(call) + " is before the trace's first call " +
                         std::to_string(*at.next)};
    reply["call"] = call;
    reply["replayed"] = replayed;
    reply["restarted"] = restarted;
    reply["ms"] = ms;
    reply["warnings"] = warnings_.take();
  }

  std::string position_text() const {
    return position_ ? std::to_string(*position_) : std::string("none");
  }

  // Runs a query on the thread of the last call, with that thread's
  // context current.
  void on_current_thread(const std::function<void()>& query) {
    if (!position_) throw RequestError{"no call replayed yet: goto a call first"};
    std::optional<RequestError> failed;
    std::string error;
    bool ran = controller_.run_on_target(
        thread_,
        [&] {
          session_.set_thread(thread_);
          try {
            query();
          } catch (const RequestError& e) {
            failed = e;
          } catch (const std::exception& e) {  // not to end the replay thread
            failed = RequestError{std::string("internal error: ") + e.what()};
          }
        },
        &error);
    if (!ran) throw RequestError{error};
    if (failed) throw *failed;
  }

  TraceSource& source_;
  Session& session_;
  Warnings warnings_;
  WorkerExecutor executor_;
  replay::ReplayController controller_;
  // The last call replayed (none before the first goto) and its thread.
  std::optional<uint64_t> position_;
  uint32_t thread_ = 0;
};

// The next line of `in` (without its newline); false at the end of input.
// A line longer than kMaxRequestLine is skipped to its end: *too_long.
bool read_line(FILE* in, std::string* line, bool* too_long) {
  line->clear();
  *too_long = false;
  int c;
  while ((c = getc_unlocked(in)) != EOF && c != '\n') {
    if (line->size() < kMaxRequestLine)
      line->push_back(static_cast<char>(c));
    else
      *too_long = true;
  }
  if (*too_long) line->clear();
  return c != EOF || !line->empty() || *too_long;
}

}  // namespace

int run_state_worker(const StateWorkerOptions& options) {
  // Replies only on stdout: it becomes a private descriptor, and whatever
  // else writes to descriptor 1 (this library's report lines, the driver's
  // messages) goes to stderr.
  fflush(stdout);
  int reply_fd = dup(STDOUT_FILENO);
  if (reply_fd < 0 || dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
    fprintf(stderr, "%s: cannot set up stdout: %s\n", options.program.c_str(), strerror(errno));
    return 1;
  }
  FILE* replies = fdopen(reply_fd, "w");
  if (replies == nullptr) {
    fprintf(stderr, "%s: cannot set up stdout: %s\n", options.program.c_str(), strerror(errno));
    return 1;
  }
  auto info = std::make_shared<TraceInfo>();
  SourceOptions source_options;
  source_options.blob_memory = options.blob_memory;
  source_options.follow = options.follow;
  TraceSource source(info, source_options);
  std::string error;
  if (!source.open(options.trace, &error)) {
    fprintf(stderr, "%s: %s\n", options.program.c_str(), error.c_str());
    fclose(replies);
    return 1;
  }
  SessionOptions session_options;
  session_options.program = options.program;
  session_options.driver_dir = options.driver_dir;
  Session session(session_options, info);
  if (!session.init(&error)) {
    fprintf(stderr, "%s: %s\n", options.program.c_str(), error.c_str());
    fclose(replies);
    return 1;
  }
  GlExecutor executor(session, ExecutorOptions{});
  {
    StateWorker worker(source, session, executor);
    std::string line;
    std::string bytes;
    bool quit = false;
    bool too_long = false;
    while (!quit && read_line(stdin, &line, &too_long)) {
      if (line.empty() && !too_long) continue;
      bytes.clear();
      json reply =
          too_long ? StateWorker::failure(nullptr, "malformed request: longer than " +
                                                       std::to_string(kMaxRequestLine) + " bytes")
                   : worker.handle(line, &bytes, &quit);
      std::string text = reply.dump(-1, ' ', false, json::error_handler_t::replace);
      fputs(text.c_str(), replies);
      fputc('\n', replies);
      if (!bytes.empty() && fwrite(bytes.data(), 1, bytes.size(), replies) != bytes.size()) break;
      if (fflush(replies) != 0) break;  // the reader went away
    }
  }
  session.shutdown();
  fclose(replies);
  return 0;
}

}  // namespace gltrace::glreplay
