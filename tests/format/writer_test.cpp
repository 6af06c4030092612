// TraceWriter against real files, pipes and Unix sockets: round trips from
// several threads, a peer that goes away, SIGKILL mid-trace, a full queue.
#include "format/writer.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <regex>
#include <set>
#include <thread>

#include "format/flat_calls.h"
#include "format/reader.h"
#include "format/record_encoder.h"
#include "format/schema.h"
#include "record_text.h"
#include "support/subprocess.h"
#include "test_trace.h"

namespace gltrace {
namespace {

using format::FrameStart;
using format::Payload;
using format::TraceWriter;
using format::WriterOptions;

// Collects what the round trip checks: each thread's calls, and which chunk held each seq.
struct Collector : format::Consumer {
  void on_chunk(uint64_t offset, uint32_t /*records*/) override { chunk = offset; }
  void on_header(const format::Header& h) override {
    headers.push_back(std::string(h.process_name));
  }
  void on_thread(const format::Thread& t) override { thread_names[t.index] = std::string(t.name); }
  void on_call(const format::Call& c) override {
    calls[c.thread].push_back(c.seq);
    chunk_of_seq[c.seq] = chunk;
    ASSERT_EQ(c.args.size(), 3u);
    EXPECT_EQ(c.args[0].sint, -static_cast<int64_t>(c.seq));
    EXPECT_EQ(c.args[1].uint, c.thread);
    EXPECT_EQ(c.args[2].bytes(), "t" + std::to_string(c.thread));
    ASSERT_NE(c.ret, nullptr);
    EXPECT_EQ(c.ret->uint, c.seq + 1);
  }
  uint64_t chunk = 0;
  std::vector<std::string> headers;
  std::map<uint32_t, std::string> thread_names;
  std::map<uint32_t, std::vector<uint64_t>> calls;
  std::map<uint64_t, uint64_t> chunk_of_seq;
};

// Redirects this process's stderr (fd 2) to a file while alive.
class StderrCapture {
 public:
  StderrCapture() : path_(test::make_temp_dir() + "/stderr") {
    fflush(stderr);
    saved_ = dup(2);
    int fd = open(path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    dup2(fd, 2);
    close(fd);
  }
  ~StderrCapture() { restore(); }
  std::string text() {
    restore();
    return test::read_text_file(path_);
  }

 private:
  void restore() {
    if (saved_ < 0) return;
    fflush(stderr);
    dup2(saved_, 2);
    close(saved_);
    saved_ = -1;
  }
  std::string path_;
  int saved_ = -1;
};

// A listening AF_UNIX socket; "@name" is in the abstract namespace.
class Listener {
 public:
  explicit Listener(const std::string& path) : path_(path) {
    fd_ = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    memcpy(addr.sun_path, path.data(), path.size());
    socklen_t length = offsetof(sockaddr_un, sun_path) + path.size() + (path[0] == '@' ? 0 : 1);
    if (path[0] == '@') addr.sun_path[0] = '\0';
    EXPECT_EQ(bind(fd_, reinterpret_cast<sockaddr*>(&addr), length), 0) << strerror(errno);
    EXPECT_EQ(listen(fd_, 1), 0);
  }
  ~Listener() { close(fd_); }
  int accept_one() { return accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC); }

 private:
  std::string path_;
  int fd_ = -1;
};

std::vector<uint8_t> read_until_eof(int fd) {
  std::vector<uint8_t> bytes;
  uint8_t buffer[65536];
  for (;;) {
    ssize_t n = read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    bytes.insert(bytes.end(), buffer, buffer + n);
  }
  return bytes;
}

// A payload of `records` calls for thread 0, from seq `first` on.
Payload calls_payload(TraceWriter& writer, uint64_t first, int records) {
  wire::Encoder e;
  writer.acquire_buffer().give_to(e);
  for (int i = 0; i < records; ++i) test::encode_call(e, 0, first + i, 1);
  return Payload::from_encoder(e);
}

// Incompressible bytes, in one Blob record, of about `size` bytes.
Payload blob_payload(size_t size, uint64_t seed) {
  std::string data(size, '\0');
  uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
  for (char& c : data) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    c = static_cast<char>(x);
  }
  wire::Encoder e;
  test::encode_blob(e, seed, data);
  return Payload::from_encoder(e);
}

TEST(Writer, RoundTripFromTwoThreads) {
  std::string path = test::make_temp_dir() + "/two.gltrace";
  std::string error;
  auto writer = TraceWriter::open_file(path, {}, &error);
  ASSERT_NE(writer, nullptr) << error;
  {
    wire::Encoder e;
    test::encode_header(e, 1, "roundtrip");
    writer->submit(Payload::from_encoder(e));
  }
  constexpr int kCalls = 3000;
  std::atomic<uint64_t> next_seq{0};
  std::mutex frames_mu;
  std::vector<FrameStart> all_frames;
  auto produce = [&](uint32_t thread) {
    wire::Encoder e;
    test::encode_thread(e, thread, 1000 + thread, "worker" + std::to_string(thread));
    uint32_t records = 1;
    std::vector<FrameStart> frames;
    for (int i = 0; i < kCalls; ++i) {
      uint64_t seq = next_seq++;
      if (thread == 0 && i % 100 == 0) frames.push_back({static_cast<uint64_t>(i / 100), seq});
      test::encode_call(e, thread, seq, 3);
      if (++records == 50 || i == kCalls - 1) {
        writer->submit(Payload::from_encoder(e), frames);
        {
          std::lock_guard lock(frames_mu);
          all_frames.insert(all_frames.end(), frames.begin(), frames.end());
        }
        frames.clear();
        records = 0;
        writer->acquire_buffer().give_to(e);
      }
    }
  };
  std::thread t0(produce, 0);
  std::thread t1(produce, 1);
  t0.join();
  t1.join();
  ASSERT_TRUE(writer->close(&error)) << error;
  TraceWriter::Stats stats = writer->stats();
  EXPECT_EQ(stats.records, 1u + 2 * (kCalls + 1));
  EXPECT_EQ(stats.write_errors, 0u);
  EXPECT_EQ(stats.dropped_payloads, 0u);
  EXPECT_LT(stats.stored_bytes, stats.raw_bytes / 2);  // zstd did its job

  format::ChunkReader reader;
  ASSERT_TRUE(reader.open(path)) << reader.status().message;
  Collector c;
  format::ReadStatus status;
  ASSERT_TRUE(format::read_trace(reader, c, &status)) << status.message;
  EXPECT_TRUE(status.closed_cleanly);
  EXPECT_EQ(status.chunks, stats.chunks);
  EXPECT_EQ(c.headers, std::vector<std::string>{"roundtrip"});
  EXPECT_EQ(c.thread_names[1], "worker1");
  ASSERT_EQ(c.calls.size(), 2u);
  for (auto& [thread, seqs] : c.calls) {
    ASSERT_EQ(seqs.size(), static_cast<size_t>(kCalls)) << thread;
    EXPECT_TRUE(std::is_sorted(seqs.begin(), seqs.end())) << "thread " << thread;
  }
  EXPECT_EQ(c.chunk_of_seq.size(), 2u * kCalls);

  const format::Index* index = reader.index();
  ASSERT_NE(index, nullptr) << reader.index_error();
  ASSERT_EQ(index->entries.size(), all_frames.size());
  for (size_t i = 0; i < all_frames.size(); ++i) {
    EXPECT_EQ(index->entries[i].frame, i);
    EXPECT_EQ(index->entries[i].seq, all_frames[i].seq);
    EXPECT_EQ(index->entries[i].chunk_offset, c.chunk_of_seq[all_frames[i].seq]) << i;
  }
}

// What acquire_buffer() hands out, once the writer thread has given it back.
Payload recycled_buffer(TraceWriter& writer) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  for (;;) {
    Payload p = writer.acquire_buffer();
    if (p.data() != nullptr || std::chrono::steady_clock::now() > deadline) return p;
    std::this_thread::yield();
  }
}

Payload calls_in(Payload buffer, uint64_t first, int records) {
  wire::Encoder e;
  buffer.give_to(e);
  for (int i = 0; i < records; ++i) test::encode_call(e, 0, first + i, 1);
  return Payload::from_encoder(e);
}

TEST(Writer, BuffersAreRecycled) {
  std::string path = test::make_temp_dir() + "/recycle.gltrace";
  std::string error;
  auto writer = TraceWriter::open_file(path, {}, &error);
  ASSERT_NE(writer, nullptr) << error;
  // One payload at a time: the same buffer comes back every time.
  Payload first = calls_in({}, 0, 10);
  const uint8_t* buffer = first.data();
  writer->submit(std::move(first));
  for (uint64_t i = 1; i <= 50; ++i) {
    Payload p = recycled_buffer(*writer);
    ASSERT_EQ(p.data(), buffer) << i;
    EXPECT_EQ(p.size(), 0u);
    writer->submit(calls_in(std::move(p), i * 10, 10));
  }
  // A burst of ten: all ten buffers come back (the pool keeps up to 16).
  std::vector<Payload> burst;
  burst.push_back(recycled_buffer(*writer));
  for (int i = 1; i < 10; ++i) burst.emplace_back();
  for (int i = 0; i < 10; ++i) writer->submit(calls_in(std::move(burst[i]), 1000 + i * 10, 10));
  std::set<const uint8_t*> returned;
  for (int i = 0; i < 10; ++i) {
    Payload p = recycled_buffer(*writer);
    ASSERT_NE(p.data(), nullptr);
    EXPECT_GE(p.capacity(), 4096u);
    returned.insert(p.data());
  }
  EXPECT_EQ(returned.size(), 10u);
  EXPECT_EQ(writer->acquire_buffer().data(), nullptr);  // the pool is empty now
  EXPECT_TRUE(writer->close(&error)) << error;
  EXPECT_EQ(writer->stats().chunks, 61u);
}

TEST(Writer, CloseIsIdempotentAndLaterSubmitsAreDropped) {
  std::string path = test::make_temp_dir() + "/closed.gltrace";
  std::string error;
  auto writer = TraceWriter::open_file(path, {}, &error);
  ASSERT_NE(writer, nullptr);
  writer->submit(calls_payload(*writer, 0, 3));
  EXPECT_TRUE(writer->close(&error));
  EXPECT_TRUE(writer->close(&error));
  writer->submit(calls_payload(*writer, 3, 3));
  EXPECT_EQ(writer->stats().dropped_payloads, 1u);
  EXPECT_EQ(writer->stats().chunks, 1u);
  EXPECT_FALSE(writer->failed());
  test::Decoded d = test::decode_memory(test::read_bytes(path));
  EXPECT_TRUE(d.ok);
  EXPECT_EQ(d.lines.size(), 3u);
  struct stat st {};
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);  // private: it holds the app's data
}

TEST(Writer, OpenErrors) {
  std::string error;
  EXPECT_EQ(TraceWriter::open_file("/nonexistent/dir/x.gltrace", {}, &error), nullptr);
  EXPECT_EQ(error,
            "cannot create trace file /nonexistent/dir/x.gltrace: No such file or directory");
  std::string socket = test::make_temp_dir() + "/nobody-listens";
  EXPECT_EQ(TraceWriter::connect_unix_socket(socket, {}, &error), nullptr);
  EXPECT_EQ(error, "cannot connect to " + socket + ": No such file or directory");
  EXPECT_EQ(TraceWriter::connect_unix_socket(std::string(200, 'x'), {}, &error), nullptr);
  EXPECT_NE(error.find("too long"), std::string::npos);
  EXPECT_EQ(TraceWriter::from_fd(-1, {}, &error), nullptr);
  EXPECT_EQ(error, "cannot use trace output fd -1: Bad file descriptor");
}

// The socket stream is the file format without index: ChunkReader reads it.
TEST(Writer, UnixSocket) {
  for (const std::string& path :
       {test::make_temp_dir() + "/trace.sock", "@gltrace-test-" + std::to_string(getpid())}) {
    SCOPED_TRACE(path);
    Listener listener(path);
    std::vector<uint8_t> received;
    std::thread host([&] {
      int fd = listener.accept_one();
      received = read_until_eof(fd);
      close(fd);
    });
    std::string error;
    auto writer = TraceWriter::connect_unix_socket(path, {}, &error);
    ASSERT_NE(writer, nullptr) << error;
    wire::Encoder e;
    test::encode_header(e, 5, "socket");
    writer->submit(Payload::from_encoder(e));
    for (int i = 0; i < 10; ++i) writer->submit(calls_payload(*writer, i * 20, 20));
    ASSERT_TRUE(writer->close(&error)) << error;
    host.join();
    test::Decoded d = test::decode_memory(received);
    ASSERT_TRUE(d.ok) << d.status.message;
    EXPECT_EQ(d.status.state, format::ReadState::kEnd);
    EXPECT_FALSE(d.status.closed_cleanly);  // streams carry no index
    EXPECT_EQ(d.status.chunks, 11u);
    ASSERT_EQ(d.lines.size(), 201u);
    EXPECT_NE(d.lines[200].find(" seq=199 "), std::string::npos);
  }
}

// The host goes away: one error, then payloads are dropped without blocking.
TEST(Writer, DeadPeer) {
  std::string path = test::make_temp_dir() + "/dead.sock";
  Listener listener(path);
  StderrCapture capture;
  WriterOptions options;
  options.queue_limit_bytes = 16 << 10;  // would block quickly if failure blocked
  std::string error;
  auto writer = TraceWriter::connect_unix_socket(path, options, &error);
  ASSERT_NE(writer, nullptr) << error;
  int host = listener.accept_one();
  writer->submit(calls_payload(*writer, 0, 10));
  while (writer->stats().chunks < 1) std::this_thread::yield();
  close(host);
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < 2000; ++i) writer->submit(calls_payload(*writer, 10 + i * 10, 10));
  for (int i = 0; i < 2000 && !writer->failed(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  EXPECT_TRUE(writer->failed());
  for (int i = 0; i < 100; ++i) writer->submit(calls_payload(*writer, 0, 10));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
  EXPECT_FALSE(writer->close(&error));
  std::string logged = capture.text();
  EXPECT_EQ(test::count_occurrences(logged, "gltrace: error:"), 1u) << logged;
  std::regex expected("gltrace: error: trace output to " + path +
                      " failed at byte ([0-9]+): (Broken pipe|Connection reset by peer); the "
                      "\\1 bytes before are kept\n");
  EXPECT_TRUE(std::regex_search(logged, expected)) << logged;
  EXPECT_EQ(error.find("trace output to " + path + " failed at byte "), 0u) << error;
  TraceWriter::Stats stats = writer->stats();
  EXPECT_EQ(stats.write_errors, 1u);
  EXPECT_GT(stats.dropped_payloads, 0u);
}

// A payload waits for room in a full queue (the host reads slowly): until
// the writer takes it, its bytes are still the caller's encoder's, where a
// copy of the process made meanwhile (the flight recorder's fork) finds
// them; a Payload handed over before the wait was in neither place.
TEST(Writer, APayloadWaitingForRoomIsStillInItsEncoder) {
  std::string path = test::make_temp_dir() + "/slow.sock";
  Listener listener(path);
  WriterOptions options;
  options.queue_limit_bytes = 64 << 10;
  std::string error;
  auto writer = TraceWriter::connect_unix_socket(path, options, &error);
  ASSERT_NE(writer, nullptr) << error;
  int host = listener.accept_one();  // reads nothing until the end
  constexpr size_t kBlobBytes = 48 << 10;
  wire::Encoder waiting;
  std::atomic<int> filled{0};     // payloads encoded into `waiting`
  std::atomic<int> submitted{0};  // of those, handed over
  std::atomic<bool> stop{false};
  std::thread app([&] {
    for (int i = 1; !stop.load(); ++i) {
      Payload blob = blob_payload(kBlobBytes, static_cast<uint64_t>(i));
      waiting.raw(blob.data(), blob.size());
      filled.store(i, std::memory_order_release);
      writer->submit(waiting);
      submitted.store(i, std::memory_order_release);
    }
  });
  // The socket's buffer and the queue fill; then a submit waits (for good:
  // seen stuck for 100 ms, it is).
  int blocked_on = 0;
  for (int tries = 0, stuck = 0; tries < 1000 && stuck < 5; ++tries) {
    int before = submitted.load();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    bool waits = submitted.load() == before && filled.load(std::memory_order_acquire) == before + 1;
    stuck = waits ? stuck + 1 : 0;
    blocked_on = stuck == 5 ? before + 1 : 0;
  }
  ASSERT_NE(blocked_on, 0) << "no submit ever waited";
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    Payload expected = blob_payload(kBlobBytes, static_cast<uint64_t>(blocked_on));
    bool there = waiting.size() == expected.size() &&
                 memcmp(waiting.data(), expected.data(), expected.size()) == 0;
    _exit(there ? 0 : 1);
  }
  int status = 0;
  waitpid(child, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  stop.store(true);
  std::thread host_reads([&] { read_until_eof(host); });
  app.join();
  EXPECT_TRUE(writer->close(&error)) << error;
  EXPECT_EQ(writer->stats().dropped_payloads, 0u);
  host_reads.join();
  close(host);
}

// A pipe whose reader is gone: EPIPE, one error, and no SIGPIPE kills the app.
TEST(Writer, ClosedPipeDoesNotRaiseSigpipe) {
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    signal(SIGPIPE, SIG_DFL);
    int null = open("/dev/null", O_WRONLY);
    dup2(null, 2);  // the (expected) error line is not the test's output
    int fds[2];
    if (pipe(fds) != 0) _exit(2);
    close(fds[0]);
    std::string error;
    auto writer = TraceWriter::from_fd(fds[1], {}, &error);
    if (writer == nullptr) _exit(3);
    for (int i = 0; i < 10; ++i) writer->submit(calls_payload(*writer, i * 10, 10));
    bool closed = writer->close(&error);
    _exit(!closed && writer->failed() && error.find("Broken pipe") != std::string::npos ? 0 : 4);
  }
  int status = 0;
  waitpid(child, &status, 0);
  ASSERT_FALSE(WIFSIGNALED(status)) << "killed by signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

// The trace layer closes the writer from an atexit handler or a library
// destructor: the trace is finished there, index and footer included.
TEST(Writer, CloseAtExit) {
  // Not make_temp_dir(): the child's exit() would run its cleanup too.
  char dir[] = "/tmp/gltrace-atexit-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  std::string path = std::string(dir) + "/atexit.gltrace";
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    static TraceWriter* writer = nullptr;  // left alive on purpose: other threads may still submit
    std::string error;
    writer = TraceWriter::open_file(path, {}, &error).release();
    if (writer == nullptr) _exit(2);
    atexit([] { writer->close(); });
    std::thread app_thread([] {
      for (int i = 0; i < 1000; ++i) writer->submit(calls_payload(*writer, i * 10, 10));
    });
    for (int i = 0; i < 3; ++i) writer->submit(calls_payload(*writer, 100000 + i, 1));
    app_thread.detach();  // still submitting while the process exits
    exit(0);
  }
  int status = 0;
  waitpid(child, &status, 0);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  format::ChunkReader reader;
  ASSERT_TRUE(reader.open(path)) << reader.status().message;
  EXPECT_NE(reader.index(), nullptr) << reader.index_error();
  test::RecordText text;
  format::ReadStatus read_status;
  ASSERT_TRUE(format::read_trace(reader, text, &read_status)) << read_status.message;
  EXPECT_TRUE(read_status.closed_cleanly);
  EXPECT_GE(read_status.chunks, 3u);
  unlink(path.c_str());
  rmdir(dir);
}

// SIGKILL after some chunks: the file reads up to its last complete chunk.
TEST(Writer, SigkillLeavesCompleteChunks) {
  std::string dir = test::make_temp_dir();
  for (bool mid_chunk : {false, true}) {
    SCOPED_TRACE(mid_chunk ? "killed while writing a big chunk" : "killed between chunks");
    std::string path = dir + (mid_chunk ? "/mid.gltrace" : "/between.gltrace");
    int ready[2];
    ASSERT_EQ(pipe(ready), 0);
    pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      std::string error;
      auto writer = TraceWriter::open_file(path, {}, &error);
      if (writer == nullptr) _exit(2);
      for (int i = 0; i < 3; ++i) writer->submit(calls_payload(*writer, i * 10, 10));
      while (writer->stats().chunks < 3) std::this_thread::yield();
      if (mid_chunk) writer->submit(blob_payload(48 << 20, 1));
      char byte = 'r';
      if (write(ready[1], &byte, 1) != 1) _exit(3);
      for (;;) pause();
    }
    close(ready[1]);
    char byte = 0;
    ASSERT_EQ(read(ready[0], &byte, 1), 1);
    close(ready[0]);
    if (mid_chunk) std::this_thread::sleep_for(std::chrono::milliseconds(30));
    kill(child, SIGKILL);
    int status = 0;
    waitpid(child, &status, 0);
    ASSERT_TRUE(WIFSIGNALED(status));

    format::ChunkReader reader;
    ASSERT_TRUE(reader.open(path)) << reader.status().message;
    EXPECT_EQ(reader.index(), nullptr);
    test::RecordText text;
    format::ReadStatus read_status;
    EXPECT_TRUE(format::read_trace(reader, text, &read_status)) << read_status.message;
    EXPECT_FALSE(read_status.closed_cleanly);
    EXPECT_GE(read_status.chunks, 3u);
    EXPECT_GE(text.lines.size(), 30u);
    if (!mid_chunk) {
      EXPECT_EQ(read_status.state, format::ReadState::kEnd);
      EXPECT_EQ(read_status.chunks, 3u);
    }
  }
}

// Output slower than the app: submit waits, and every wait is counted.
TEST(Writer, FullQueueStallsAndCounts) {
  int fds[2];
  ASSERT_EQ(pipe2(fds, O_CLOEXEC), 0);
  fcntl(fds[1], F_SETPIPE_SZ, 4096);
  WriterOptions options;
  options.queue_limit_bytes = 16 << 10;
  options.zstd_level = 0;
  std::string error;
  auto writer = TraceWriter::from_fd(fds[1], options, &error);
  ASSERT_NE(writer, nullptr) << error;
  std::vector<uint8_t> received;
  std::thread host([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));  // nobody reads for a moment
    received = read_until_eof(fds[0]);
    close(fds[0]);
  });
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < 40; ++i) writer->submit(blob_payload(4000, i));
  auto submitting = std::chrono::steady_clock::now() - start;
  ASSERT_TRUE(writer->close(&error)) << error;
  host.join();
  TraceWriter::Stats stats = writer->stats();
  EXPECT_GT(stats.stall_count, 0u);
  EXPECT_GT(stats.stall_ns, 100'000'000u);  // most of the reader's 300 ms
  EXPECT_LE(stats.stall_ns,
            static_cast<uint64_t>(
                std::chrono::duration_cast<std::chrono::nanoseconds>(submitting).count()));
  EXPECT_EQ(stats.dropped_payloads, 0u);
  test::Decoded d = test::decode_memory(received);
  ASSERT_TRUE(d.ok) << d.status.message;
  EXPECT_EQ(d.lines.size(), 40u);  // nothing dropped
}

// Over 64 MiB: split between records; a single record over it cannot be stored.
TEST(Writer, OversizedPayloads) {
  std::string path = test::make_temp_dir() + "/big.gltrace";
  WriterOptions options;
  options.zstd_level = 0;
  std::string error;
  auto writer = TraceWriter::open_file(path, options, &error);
  ASSERT_NE(writer, nullptr) << error;
  StderrCapture capture;
  wire::Encoder e;
  std::string data(40 << 20, 'x');
  test::encode_blob(e, 1, data);
  test::encode_blob(e, 2, data);
  test::encode_frame(e, 0, 0);
  writer->submit(Payload::from_encoder(e));
  data.resize((64 << 20) + 1);
  test::encode_blob(e, 3, data);
  test::encode_frame(e, 1, 1);
  writer->submit(Payload::from_encoder(e));
  ASSERT_TRUE(writer->close(&error)) << error;
  std::string logged = capture.text();
  std::regex expected("gltrace: warning: trace output to " + path +
                      ": dropped a 6710[0-9]{4}-byte record, over the 64 MiB chunk limit\n");
  EXPECT_TRUE(std::regex_search(logged, expected)) << logged;
  TraceWriter::Stats stats = writer->stats();
  EXPECT_EQ(stats.dropped_records, 1u);
  EXPECT_EQ(stats.chunks, 3u);
  EXPECT_EQ(stats.records, 4u);

  format::ChunkReader reader;
  ASSERT_TRUE(reader.open(path));
  std::vector<uint32_t> counts;
  format::ChunkView chunk;
  while (reader.next(&chunk)) counts.push_back(chunk.record_count);
  EXPECT_TRUE(reader.status().ok()) << reader.status().message;
  EXPECT_EQ(counts, (std::vector<uint32_t>{1, 2, 1}));
}

// A child forked while tracing must not touch the parent's writer.
// A flat call (format/flat_calls.h) of one uint argument, as the trace layer
// appends it.
void append_flat_call(wire::Encoder& e, uint64_t seq, uint64_t start_ns, uint64_t duration_ns) {
  format::FlatCallHead head;
  head.function = 7;
  head.seq = seq;
  head.start_ns = start_ns;
  head.duration_ns = duration_ns;
  head.args_size = 9;
  uint8_t* p = e.begin_write(1 + sizeof head + 9);
  *p++ = format::kFlatCallMarker;
  memcpy(p, &head, sizeof head);
  p += sizeof head;
  *p++ = format::flat_value_byte(format::FlatValue::kUint, false);
  memcpy(p, &seq, 8);
  e.end_write(p + 8);
}

// A payload split over the 64 MiB limit takes its times column with it:
// every chunk's calls and frames decode with their own times.
TEST(Writer, ASplitPayloadSplitsItsTimesColumn) {
  std::string path = test::make_temp_dir() + "/split.gltrace";
  WriterOptions options;
  options.zstd_level = 0;
  std::string error;
  auto writer = TraceWriter::open_file(path, options, &error);
  ASSERT_NE(writer, nullptr) << error;
  wire::Encoder e;
  std::string data(30 << 20, 'x');
  uint64_t seq = 0;
  uint64_t frame = 0;
  for (int blob = 1; blob <= 5; ++blob) {
    test::encode_blob(e, static_cast<uint64_t>(blob), data);
    for (int i = 0; i < 3; ++i, ++seq) append_flat_call(e, seq, 1000 * seq + 7, 100 + seq);
    format::Frame f;
    f.number = frame++;
    f.seq = seq - 1;
    f.time_ns = 1000 * seq;
    format::encode_record(e, f);
  }
  writer->submit(Payload::from_encoder(e));
  ASSERT_TRUE(writer->close(&error)) << error;
  TraceWriter::Stats stats = writer->stats();
  EXPECT_EQ(stats.dropped_records, 0u);
  EXPECT_GE(stats.chunks, 3u);

  struct Times : format::Consumer {
    std::vector<format::Call> calls;  // without their args (gone after on_call)
    std::vector<uint64_t> args;
    std::vector<format::Frame> frames;
    void on_call(const format::Call& c) override {
      calls.push_back(c);
      args.push_back(c.args.size() == 1 ? c.args[0].uint : ~uint64_t{0});
    }
    void on_frame(const format::Frame& f) override { frames.push_back(f); }
  } times;
  format::ChunkReader reader;
  ASSERT_TRUE(reader.open(path));
  format::ReadStatus status;
  ASSERT_TRUE(format::read_trace(reader, times, &status)) << status.message;
  ASSERT_EQ(times.calls.size(), 15u);
  for (uint64_t i = 0; i < 15; ++i) {
    EXPECT_EQ(times.calls[i].seq, i);
    EXPECT_EQ(times.calls[i].start_ns, 1000 * i + 7);
    EXPECT_EQ(times.calls[i].duration_ns, 100 + i);
    EXPECT_EQ(times.args[i], i);
  }
  ASSERT_EQ(times.frames.size(), 5u);
  for (uint64_t i = 0; i < 5; ++i) {
    EXPECT_EQ(times.frames[i].number, i);
    EXPECT_EQ(times.frames[i].seq, 3 * i + 2);
    EXPECT_EQ(times.frames[i].time_ns, 3000 * (i + 1));
  }
}

TEST(Writer, ForkedChildIsInert) {
  std::string path = test::make_temp_dir() + "/fork.gltrace";
  std::string error;
  auto writer = TraceWriter::open_file(path, {}, &error);
  ASSERT_NE(writer, nullptr);
  writer->submit(calls_payload(*writer, 0, 5));
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    writer->submit(calls_payload(*writer, 100, 5));
    std::string child_error;
    bool closed = writer->close(&child_error);
    writer.reset();  // the destructor must not join the parent's thread
    _exit(!closed && child_error == "the trace writer belongs to the parent process" ? 0 : 1);
  }
  int status = 0;
  waitpid(child, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  writer->submit(calls_payload(*writer, 5, 5));
  ASSERT_TRUE(writer->close(&error)) << error;
  test::Decoded d = test::decode_memory(test::read_bytes(path));
  ASSERT_TRUE(d.ok) << d.status.message;
  EXPECT_EQ(d.lines.size(), 10u);
}

// A host that stops reading must not hold the app at exit forever.
TEST(Writer, StuckPeerDoesNotHangClose) {
  std::string path = test::make_temp_dir() + "/stuck.sock";
  Listener listener(path);
  WriterOptions options;
  options.close_timeout_ms = 200;
  options.zstd_level = 0;
  std::string error;
  auto writer = TraceWriter::connect_unix_socket(path, options, &error);
  ASSERT_NE(writer, nullptr) << error;
  int host = listener.accept_one();  // never reads
  StderrCapture capture;
  for (int i = 0; i < 8; ++i) writer->submit(blob_payload(1 << 20, i));
  auto start = std::chrono::steady_clock::now();
  EXPECT_FALSE(writer->close(&error));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  std::string logged = capture.text();
  EXPECT_NE(logged.find("stuck for 200 ms at close, disconnecting"), std::string::npos) << logged;
  close(host);
}

}  // namespace
}  // namespace gltrace
