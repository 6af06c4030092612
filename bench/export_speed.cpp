// gltrace-bench-export: the cost of `gltrace export`'s stages on one trace,
// each measured apart (bench/export_speed.py runs it on several traces).
//
// The trace is read, decompressed and decoded into memory first (timed: the
// decoding), then encoded as Perfetto packets from memory, best of --runs:
// plain packets to /dev/null (the encoder alone), then zstd-compressed (the
// encoding thread's CPU time, and the wall time with the compressing thread).
// Prints one line of key=value figures.
//
// With --encode-only it encodes plain packets once and prints nothing: run it
// under `valgrind --tool=callgrind --collect-atstart=no
// --toggle-collect=*encode_from_memory*` to count the encoder's instructions
// (stable where times on a shared machine are not).
#include <time.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "consumers/trace_events.h"
#include "format/reader.h"
#include "format/records.h"

namespace {

using gltrace::consumers::PerfettoWriter;
using gltrace::format::RecordBatch;

double seconds(clockid_t clock) {
  timespec ts{};
  clock_gettime(clock, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// A chunk decoded: the batch's records point into the payload.
struct DecodedChunk {
  std::vector<uint8_t> payload;
  RecordBatch batch;
};

// Feeds decoded records to the writer as gltrace export does.
class Exporter : public gltrace::format::Consumer {
 public:
  explicit Exporter(PerfettoWriter& writer) : writer_(writer) {}
  void on_header(const gltrace::format::Header& h) override {
    writer_.process(h.pid, h.process_name, h.command_line);
  }
  void on_thread(const gltrace::format::Thread& t) override {
    writer_.thread(t.index, t.tid, t.name);
  }
  void on_call(const gltrace::format::Call& call) override {
    writer_.call(call);
    ++calls;
  }
  void on_blob(const gltrace::format::Blob& blob) override { writer_.blob(blob); }
  void on_frame(const gltrace::format::Frame& frame) override { writer_.frame(frame); }
  uint64_t calls = 0;

 private:
  PerfettoWriter& writer_;
};

struct Encoded {
  uint64_t calls = 0;
  uint64_t bytes = 0;
  double thread_seconds = 0;  // this thread's CPU time
  double wall_seconds = 0;
};

// Not inlined: callgrind's --toggle-collect names it.
[[gnu::noinline]] Encoded encode_from_memory(
    const std::vector<std::unique_ptr<DecodedChunk>>& chunks,
    PerfettoWriter::Compression compression) {
  FILE* out = fopen("/dev/null", "wb");
  if (out == nullptr) {
    perror("gltrace-bench-export: /dev/null");
    exit(1);
  }
  Encoded e;
  double cpu = seconds(CLOCK_THREAD_CPUTIME_ID), wall = seconds(CLOCK_MONOTONIC);
  {
    PerfettoWriter writer(out, compression);
    Exporter exporter(writer);
    for (const auto& chunk : chunks) chunk->batch.replay(exporter);
    std::string error;
    if (!writer.finish(&error)) {
      fprintf(stderr, "gltrace-bench-export: %s\n", error.c_str());
      exit(1);
    }
    e.calls = exporter.calls;
    e.bytes = writer.bytes_written();
  }
  e.thread_seconds = seconds(CLOCK_THREAD_CPUTIME_ID) - cpu;
  e.wall_seconds = seconds(CLOCK_MONOTONIC) - wall;
  fclose(out);
  return e;
}

Encoded best_of(int runs, const std::vector<std::unique_ptr<DecodedChunk>>& chunks,
                PerfettoWriter::Compression compression) {
  Encoded best;
  for (int i = 0; i < runs; ++i) {
    Encoded e = encode_from_memory(chunks, compression);
    if (i == 0 || e.thread_seconds < best.thread_seconds) best.thread_seconds = e.thread_seconds;
    if (i == 0 || e.wall_seconds < best.wall_seconds) best.wall_seconds = e.wall_seconds;
    best.calls = e.calls;
    best.bytes = e.bytes;
  }
  return best;
}

void usage(FILE* out) {
  fputs("usage: gltrace-bench-export TRACE [--runs N] [--encode-only]\n", out);
}

}  // namespace

int main(int argc, char** argv) {
  std::string path;
  int runs = 5;
  bool encode_only = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--runs" && i + 1 < argc) {
      runs = std::atoi(argv[++i]);
    } else if (a == "--encode-only") {
      encode_only = true;
    } else if (a == "-h" || a == "--help") {
      usage(stdout);
      return 0;
    } else if (path.empty() && !a.starts_with("-")) {
      path = a;
    } else {
      usage(stderr);
      return 2;
    }
  }
  if (path.empty() || runs < 1) {
    usage(stderr);
    return 2;
  }

  gltrace::format::ChunkReader reader;
  if (!reader.open(path)) {
    fprintf(stderr, "gltrace-bench-export: %s: %s\n", path.c_str(),
            reader.status().message.c_str());
    return 1;
  }
  // Reading and decompressing, then decoding into a batch reused for every
  // chunk (as gltrace export does), timed apart; then the trace is kept
  // decoded in memory for the encoder, untimed.
  std::vector<std::unique_ptr<DecodedChunk>> chunks;
  gltrace::format::ChunkView view;
  double read_seconds = 0, decode_seconds = 0;
  gltrace::format::RecordDecoder decoder;
  DecodedChunk reused;
  for (;;) {
    double t = seconds(CLOCK_THREAD_CPUTIME_ID);
    if (!reader.next(&view)) break;
    reused.payload.assign(view.payload.begin(), view.payload.end());
    reused.batch.clear();
    double t2 = seconds(CLOCK_THREAD_CPUTIME_ID);
    read_seconds += t2 - t;
    if (!decoder.decode_chunk(reused.payload, reused.batch) || reused.batch.overflowed()) {
      fprintf(stderr, "gltrace-bench-export: %s: a chunk did not decode: %s\n", path.c_str(),
              decoder.error().c_str());
      return 1;
    }
    decode_seconds += seconds(CLOCK_THREAD_CPUTIME_ID) - t2;
    auto chunk = std::make_unique<DecodedChunk>();
    chunk->payload = reused.payload;
    decoder.decode_chunk(chunk->payload, chunk->batch);
    chunks.push_back(std::move(chunk));
  }
  if (!reader.status().ok()) {
    fprintf(stderr, "gltrace-bench-export: %s: %s\n", path.c_str(),
            reader.status().message.c_str());
    return 1;
  }

  if (encode_only) {
    encode_from_memory(chunks, PerfettoWriter::Compression::kNone);
    return 0;
  }
  Encoded plain = best_of(runs, chunks, PerfettoWriter::Compression::kNone);
  Encoded zstd = best_of(runs, chunks, PerfettoWriter::Compression::kZstd);
  auto ns_per_call = [&](double s) {
    return plain.calls != 0 ? s * 1e9 / static_cast<double>(plain.calls) : 0.0;
  };
  printf("calls=%" PRIu64 " read_ns_per_call=%.1f decode_ns_per_call=%.1f plain_bytes=%" PRIu64
         " plain_ns_per_call=%.1f zstd_bytes=%" PRIu64
         " zstd_thread_ns_per_call=%.1f zstd_wall_ns_per_call=%.1f\n",
         plain.calls, ns_per_call(read_seconds), ns_per_call(decode_seconds), plain.bytes,
         ns_per_call(plain.thread_seconds), zstd.bytes, ns_per_call(zstd.thread_seconds),
         ns_per_call(zstd.wall_seconds));
  return 0;
}
