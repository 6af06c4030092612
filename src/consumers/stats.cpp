#include "consumers/stats.h"

#include <algorithm>
#include <bit>
#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <string>

#include "consumers/frame_end.h"
#include "consumers/trace_events.h"
#include "gltrace/api/roles.h"

namespace gltrace::consumers {
namespace {

size_t bucket_of(uint64_t ns) {
  if (ns < 64) return static_cast<size_t>(ns);
  unsigned e = 63u - static_cast<unsigned>(std::countl_zero(ns));  // >= 6
  return 64 + (e - 6) * 64 + static_cast<size_t>((ns >> (e - 6)) & 63);
}

// The middle of a bucket's range: within half a bucket (1/128) of any value in it.
uint64_t bucket_value(size_t bucket) {
  if (bucket < 64) return bucket;
  size_t e = (bucket - 64) / 64 + 6;
  uint64_t low = (64 + (bucket - 64) % 64) << (e - 6);
  return low + ((uint64_t{1} << (e - 6)) >> 1);
}

double ms(uint64_t ns) { return static_cast<double>(ns) / 1e6; }
double us(uint64_t ns) { return static_cast<double>(ns) / 1e3; }

std::string function_name(uint32_t id) {
  const char* name = api::kFunctionInfo[id].name;
  return name != nullptr ? name : "function#" + std::to_string(id);
}

}  // namespace

void DurationHistogram::add(uint64_t ns) {
  if (buckets_.empty()) buckets_.resize(kBuckets);
  ++buckets_[bucket_of(ns)];
  ++count_;
  max_ = std::max(max_, ns);
  min_ = count_ == 1 ? ns : std::min(min_, ns);
}

uint64_t DurationHistogram::quantile(double q) const {
  if (count_ == 0) return 0;
  auto rank = static_cast<uint64_t>(std::ceil(q * static_cast<double>(count_)));
  rank = std::clamp<uint64_t>(rank, 1, count_);
  // The ends are known exactly.
  if (rank == 1) return min_;
  if (rank == count_) return max_;
  uint64_t seen = 0;
  for (size_t b = 0; b < buckets_.size(); ++b) {
    seen += buckets_[b];
    // The top bucket holds the maximum, known exactly.
    if (seen >= rank) return std::clamp(bucket_value(b), min_, max_);
  }
  return max_;
}

void StatsCollector::on_header(const format::Header& header) {
  std::string_view options = header.capture_options;
  if (options.find("thread-time=on") != std::string_view::npos)
    thread_time_option_ = 1;
  else if (options.find("thread-time=off") != std::string_view::npos)
    thread_time_option_ = 0;
  gpu_time_option_ = options.find("gpu-time=on") != std::string_view::npos;
}

bool StatsCollector::thread_time_recorded() const {
  return thread_time_option_ == 1 || (thread_time_option_ == -1 && any_thread_time_);
}

void StatsCollector::on_call(const format::Call& call) {
  ++calls_;
  FunctionStats* f = &unknown_functions_;
  if (call.function < functions_.size()) {
    auto& slot = functions_[call.function];
    if (!slot) slot = std::make_unique<FunctionStats>();
    f = slot.get();
  }
  ++f->count;
  f->wall.total_ns += call.duration_ns;
  f->wall.histogram.add(call.duration_ns);
  f->thread.total_ns += call.thread_time_ns;
  f->thread.histogram.add(call.thread_time_ns);
  any_thread_time_ = any_thread_time_ || call.thread_time_ns != 0;
  ++current_.calls;
  current_.call_ns += call.duration_ns;
  if (gpu_time_option_) gpu_time_join_.on_call(call, frame_count_);
  if (ends_frame(call)) end_frame(call.start_ns + call.duration_ns);
}

void StatsCollector::on_gpu_time(const format::GpuTime& g) {
  std::optional<TimedCall> call = gpu_time_join_.take(g.seq);
  if (!call) return;  // not a call of this trace's (damage)
  ++gpu_times_;
  FunctionStats* f =
      call->function < functions_.size() ? functions_[call->function].get() : &unknown_functions_;
  if (f != nullptr) {
    f->gpu.total_ns += g.duration_ns;
    f->gpu.histogram.add(g.duration_ns);
  }
  if (call->frame == frame_count_)
    current_.gpu_ns += g.duration_ns;
  else if (call->frame < frames_.size())
    frames_[call->frame].gpu_ns += g.duration_ns;
}

void StatsCollector::end_frame(uint64_t end_ns) {
  current_.end_time_ns = end_ns;
  if (frames_.size() < max_frames_) frames_.push_back(current_);
  frame_times_.add(end_ns >= previous_frame_end_ ? end_ns - previous_frame_end_ : 0);
  previous_frame_end_ = end_ns;
  ++frame_count_;
  current_ = {};
}

std::vector<StatsCollector::Row> StatsCollector::rows() const {
  std::vector<Row> rows;
  for (uint32_t id = 0; id < functions_.size(); ++id)
    if (functions_[id]) rows.push_back({function_name(id), functions_[id].get()});
  if (unknown_functions_.count != 0)
    rows.push_back({"(functions unknown to this gltrace)", &unknown_functions_});
  std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
    return a.stats->wall.total_ns > b.stats->wall.total_ns;
  });
  return rows;
}

void StatsCollector::print(FILE* out, Format format, bool frames) const {
  switch (format) {
    case Format::kText:
      return print_text(out);
    case Format::kCsv:
      return print_csv(out, frames);
    case Format::kJson:
      return print_json(out);
  }
}

void StatsCollector::print_text(FILE* out) const {
  std::vector<Row> table = rows();
  uint64_t total_ns = 0;
  for (const Row& r : table) total_ns += r.stats->wall.total_ns;
  bool thread_time = thread_time_recorded();
  fprintf(out, "%-40s %10s %12s %6s %10s %10s %10s %10s %12s %10s\n", "function", "calls",
          "total ms", "%", "mean us", "p50 us", "p95 us", "max us", "thread ms", "thr p95 us");
  for (const Row& r : table) {
    const FunctionStats& f = *r.stats;
    fprintf(out, "%-40s %10" PRIu64 " %12.3f %6.2f %10.3f %10.3f %10.3f %10.3f", r.name.c_str(),
            f.count, ms(f.wall.total_ns),
            total_ns != 0
                ? 100.0 * static_cast<double>(f.wall.total_ns) / static_cast<double>(total_ns)
                : 0.0,
            us(f.wall.total_ns) / static_cast<double>(f.count), us(f.wall.histogram.quantile(0.5)),
            us(f.wall.histogram.quantile(0.95)), us(f.wall.histogram.max()));
    if (thread_time)
      fprintf(out, " %12.3f %10.3f\n", ms(f.thread.total_ns),
              us(f.thread.histogram.quantile(0.95)));
    else
      fprintf(out, " %12s %10s\n", "n/a", "n/a");
  }
  fprintf(out, "%-40s %10" PRIu64 " %12.3f\n", "all", calls_, ms(total_ns));
  if (!thread_time) fprintf(out, "thread time: n/a (not recorded: trace with --thread-time)\n");
  bool gpu = gpu_time_recorded();
  fprintf(out, "\n%-8s %10s %14s %14s%s\n", "frame", "calls", "in calls ms", "frame ms",
          gpu ? "         gpu ms" : "");
  uint64_t previous_end = 0;
  for (size_t i = 0; i < frames_.size(); ++i) {
    const FrameStats& f = frames_[i];
    fprintf(out, "%-8zu %10" PRIu64 " %14.3f %14.3f", i, f.calls, ms(f.call_ns),
            ms(f.end_time_ns - previous_end));
    if (gpu) fprintf(out, " %14.3f", ms(f.gpu_ns));
    fputc('\n', out);
    previous_end = f.end_time_ns;
  }
  if (frame_count_ > frames_.size())
    fprintf(out, "... %" PRIu64 " more frames (--frames-max to show more)\n",
            frame_count_ - frames_.size());
  if (frame_count_ != 0)
    fprintf(out, "frame ms: p50 %.3f, p95 %.3f, max %.3f (all %" PRIu64 " frames)\n",
            ms(frame_times_.quantile(0.5)), ms(frame_times_.quantile(0.95)), ms(frame_times_.max()),
            frame_count_);
  if (!gpu_time_recorded()) {
    fprintf(out, "GPU time: n/a (not recorded: trace with --gpu-time, or replay --profile)\n");
    return;
  }
  // The GPU's time per function and per frame.
  fprintf(out, "\n%-40s %10s %12s %10s %10s %10s\n", "function (GPU time)", "timed", "gpu ms",
          "mean us", "p95 us", "max us");
  std::vector<Row> by_gpu = table;
  std::stable_sort(by_gpu.begin(), by_gpu.end(), [](const Row& a, const Row& b) {
    return a.stats->gpu.total_ns > b.stats->gpu.total_ns;
  });
  for (const Row& r : by_gpu) {
    const Durations& g = r.stats->gpu;
    if (g.histogram.count() == 0) continue;
    fprintf(out, "%-40s %10" PRIu64 " %12.3f %10.3f %10.3f %10.3f\n", r.name.c_str(),
            g.histogram.count(), ms(g.total_ns),
            us(g.total_ns) / static_cast<double>(g.histogram.count()),
            us(g.histogram.quantile(0.95)), us(g.histogram.max()));
  }
  std::vector<double> frame_gpu;
  for (const FrameStats& f : frames_) frame_gpu.push_back(ms(f.gpu_ns));
  std::sort(frame_gpu.begin(), frame_gpu.end());
  if (!frame_gpu.empty())
    fprintf(out, "frame GPU ms (the sum of its calls'): p50 %.3f, max %.3f (%zu frames)\n",
            frame_gpu[frame_gpu.size() / 2], frame_gpu.back(), frame_gpu.size());
}

void StatsCollector::print_csv(FILE* out, bool frames) const {
  if (frames) {
    fprintf(out, "frame,calls,call_ns,wall_ns,gpu_ns\n");
    uint64_t previous_end = 0;
    for (size_t i = 0; i < frames_.size(); ++i) {
      const FrameStats& f = frames_[i];
      fprintf(out, "%zu,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",", i, f.calls, f.call_ns,
              f.end_time_ns - previous_end);
      if (gpu_time_recorded())
        fprintf(out, "%" PRIu64 "\n", f.gpu_ns);
      else
        fputs("n/a\n", out);
      previous_end = f.end_time_ns;
    }
    return;
  }
  bool thread_time = thread_time_recorded();
  fprintf(out,
          "function,count,wall_total_ns,wall_mean_ns,wall_p50_ns,wall_p95_ns,wall_max_ns,"
          "thread_total_ns,thread_mean_ns,thread_p50_ns,thread_p95_ns,thread_max_ns\n");
  for (const Row& r : rows()) {
    const FunctionStats& f = *r.stats;
    // Names are the registry's (letters, digits, '#', spaces, parentheses):
    // nothing a CSV field must quote.
    fprintf(out, "%s,%" PRIu64, r.name.c_str(), f.count);
    for (const Durations* d : {&f.wall, &f.thread}) {
      if (d == &f.thread && !thread_time) {
        fputs(",n/a,n/a,n/a,n/a,n/a", out);
        continue;
      }
      fprintf(out, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64, d->total_ns,
              d->total_ns / f.count, d->histogram.quantile(0.5), d->histogram.quantile(0.95),
              d->histogram.max());
    }
    fputc('\n', out);
  }
}

void StatsCollector::print_json(FILE* out) const {
  bool thread_time = thread_time_recorded();
  std::string json =
      "{\n  \"percentiles\": \"nearest rank over a log-linear histogram: exact "
      "below 64 ns, else within 0.8%\",\n  \"thread_time_recorded\": ";
  json += thread_time ? "true" : "false";
  json += ",\n  \"calls\": " + std::to_string(calls_) + ",\n  \"functions\": [";
  auto durations = [&](const Durations& d, uint64_t count) {
    json += "{\"total_ns\": " + std::to_string(d.total_ns) +
            ", \"mean_ns\": " + std::to_string(d.total_ns / count) +
            ", \"p50_ns\": " + std::to_string(d.histogram.quantile(0.5)) +
            ", \"p95_ns\": " + std::to_string(d.histogram.quantile(0.95)) +
            ", \"max_ns\": " + std::to_string(d.histogram.max()) + "}";
  };
  bool first = true;
  for (const Row& r : rows()) {
    json += first ? "\n    {\"name\": " : ",\n    {\"name\": ";
    first = false;
    append_json_string(json, r.name);
    json += ", \"count\": " + std::to_string(r.stats->count) + ", \"wall\": ";
    durations(r.stats->wall, r.stats->count);
    json += ", \"thread\": ";
    if (thread_time)
      durations(r.stats->thread, r.stats->count);
    else
      json += "null";
    json += ", \"gpu\": ";
    if (r.stats->gpu.histogram.count() != 0)
      durations(r.stats->gpu, r.stats->gpu.histogram.count());
    else
      json += "null";
    json += "}";
  }
  json += "\n  ],\n  \"frames\": {\"count\": " + std::to_string(frame_count_) +
          ", \"wall_p50_ns\": " + std::to_string(frame_times_.quantile(0.5)) +
          ", \"wall_p95_ns\": " + std::to_string(frame_times_.quantile(0.95)) +
          ", \"wall_max_ns\": " + std::to_string(frame_times_.max()) + ", \"first\": [";
  uint64_t previous_end = 0;
  for (size_t i = 0; i < frames_.size(); ++i) {
    const FrameStats& f = frames_[i];
    json += i == 0 ? "\n    " : ",\n    ";
    json += "{\"frame\": " + std::to_string(i) + ", \"calls\": " + std::to_string(f.calls) +
            ", \"call_ns\": " + std::to_string(f.call_ns) +
            ", \"wall_ns\": " + std::to_string(f.end_time_ns - previous_end) +
            ", \"gpu_ns\": " + (gpu_time_recorded() ? std::to_string(f.gpu_ns) : "null") + "}";
    previous_end = f.end_time_ns;
  }
  json += "\n  ]}\n}\n";
  fputs(json.c_str(), out);
}

}  // namespace gltrace::consumers
