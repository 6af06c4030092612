#include "glreplay/profile_report.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <numeric>

#include "gltrace/api/functions.h"
#include "gltrace/api/roles.h"

namespace gltrace::glreplay {

namespace {

using Json = nlohmann::ordered_json;

double ms(uint64_t ns) { return static_cast<double>(ns) / 1e6; }

std::string function_name(uint32_t function) {
  return function < api::kFunctionIdLimit && api::kFunctionInfo[function].name != nullptr
             ? api::kFunctionInfo[function].name
             : "function " + std::to_string(function);
}

// A table: its columns, and rows of JSON values (numbers, strings, null
// where nothing was measured).
struct Table {
  std::string name;
  std::vector<std::string> columns;
  std::vector<std::vector<Json>> rows;
};

std::string cell_text(const Json& v) {
  if (v.is_null()) return "-";
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "yes" : "";
  if (v.is_number_float()) {
    char text[32];
    snprintf(text, sizeof text, "%.3f", v.get<double>());
    return text;
  }
  return v.dump();
}

void append_text(const Table& t, std::string* out) {
  // A list of what and its value: lines of "what: value".
  if (t.columns.size() == 2 && t.columns[0] == "what") {
    *out += t.name + ":\n";
    for (const auto& row : t.rows)
      *out += "  " + cell_text(row[0]) + ": " + cell_text(row[1]) + "\n";
    return;
  }
  std::vector<size_t> widths;
  for (const std::string& c : t.columns) widths.push_back(c.size());
  std::vector<std::vector<std::string>> cells;
  for (const auto& row : t.rows) {
    cells.emplace_back();
    for (size_t i = 0; i < row.size(); ++i) {
      cells.back().push_back(cell_text(row[i]));
      widths[i] = std::max(widths[i], cells.back().back().size());
    }
  }
  *out += t.name + ":\n";
  auto line = [&](const std::vector<std::string>& values, const std::vector<Json>* row) {
    std::string text = " ";
    for (size_t i = 0; i < values.size(); ++i) {
      // Numbers right, words left.
      bool right = row != nullptr && ((*row)[i].is_number() || (*row)[i].is_null());
      std::string pad(widths[i] - values[i].size(), ' ');
      text += " " + (right ? pad + values[i] : values[i] + pad);
    }
    while (!text.empty() && text.back() == ' ') text.pop_back();
    *out += text + "\n";
  };
  line(t.columns, nullptr);
  for (size_t r = 0; r < cells.size(); ++r) line(cells[r], &t.rows[r]);
}

void append_csv(const Table& t, std::string* out) {
  auto field = [](const std::string& s) {
    if (s.find_first_of(",\"\n") == std::string::npos) return s;
    std::string quoted = "\"";
    for (char c : s) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
    return quoted + "\"";
  };
  *out += "table";
  for (const std::string& c : t.columns) *out += "," + field(c);
  *out += "\n";
  for (const auto& row : t.rows) {
    *out += t.name;
    for (const Json& v : row) *out += "," + (v.is_null() ? std::string() : field(cell_text(v)));
    *out += "\n";
  }
}

Json table_json(const Table& t) {
  Json rows = Json::array();
  for (const auto& row : t.rows) {
    Json object = Json::object();
    for (size_t i = 0; i < row.size(); ++i) object[t.columns[i]] = row[i];
    rows.push_back(std::move(object));
  }
  return rows;
}

// GPU milliseconds, or null when not measured.
Json gpu_ms(uint64_t ns, bool measured) { return measured ? Json(ms(ns)) : Json(); }

bool in_frame(const ProfileReportOptions& o, uint64_t frame) {
  return !o.frame || *o.frame == frame;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

Table summary_table(const Profile& p) {
  Table t{"summary", {"what", "value"}, {}};
  auto add = [&](const std::string& what, Json value) {
    t.rows.push_back({what, std::move(value)});
  };
  add("gpu timer", p.gpu_timer.empty() ? Json("none: " + p.no_gpu_time) : Json(p.gpu_timer));
  uint64_t ended = 0;
  for (const FrameRecord& f : p.frames) ended += f.ended ? 1 : 0;
  add("frames", ended);
  uint64_t draws = 0;
  std::vector<double> span, busy, cpu;
  uint64_t span_total = 0, busy_total = 0;
  uint64_t disjoint = 0;
  for (const FrameRecord& f : p.frames) {
    draws += f.draws;
    cpu.push_back(ms(f.cpu_calls_ns));
    GpuSpan s = gpu_span(p, f.first_work, f.work_count);
    disjoint += f.disjoint ? 1 : 0;
    if (s.measured == 0 || f.disjoint) continue;
    span.push_back(ms(s.span_ns()));
    busy.push_back(ms(s.busy_ns));
    span_total += s.span_ns();
    busy_total += s.busy_ns;
  }
  add("gpu work calls", p.work.size());
  add("draws", draws);
  add("render passes", p.passes.size());
  add("frame cpu ms (median)", median(cpu));
  if (!span.empty()) {
    add("frame gpu ms (median, first work's start to last's end)", median(span));
    add("frame gpu busy ms (median, the sum of its work's times)", median(busy));
    // How much of the frames' GPU time their work's own times explain: the
    // rest is between them (state changes, uploads, the GPU idle).
    add("gpu busy / gpu span (all frames)",
        span_total != 0 ? static_cast<double>(busy_total) / static_cast<double>(span_total) : 0.0);
  }
  add("frames a disjoint event touched", disjoint);
  add("result reads that waited for the GPU (at a context's end or the replay's)", p.waits);
  add("gpu work not measured", p.unmeasured);
  return t;
}

Table frames_table(const Profile& p) {
  // The calls after the last frame's end (if any) are a frame that did not end.
  Table t{"frames",
          {"frame", "ended", "calls", "draws", "vertices", "data bytes", "cpu ms", "cpu calls ms",
           "gpu ms", "gpu busy ms", "disjoint"},
          {}};
  for (const FrameRecord& f : p.frames) {
    GpuSpan s = gpu_span(p, f.first_work, f.work_count);
    t.rows.push_back({f.number, f.ended, f.calls, f.draws, f.vertices, f.data_bytes,
                      ms(f.cpu_end_ns - f.cpu_start_ns), ms(f.cpu_calls_ns),
                      gpu_ms(s.span_ns(), s.measured != 0), gpu_ms(s.busy_ns, s.measured != 0),
                      f.disjoint});
  }
  return t;
}

Table passes_table(const Profile& p, const ProfileReportOptions& o) {
  Table t{
      "passes",
      {"frame", "pass", "context", "framebuffer", "work", "first call", "gpu ms", "gpu busy ms"},
      {}};
  uint64_t frame = UINT64_MAX, in_frame_index = 0;
  for (const RenderPass& pass : p.passes) {
    in_frame_index = pass.frame == frame ? in_frame_index + 1 : 0;
    frame = pass.frame;
    if (!in_frame(o, pass.frame)) continue;
    GpuSpan s = gpu_span(p, pass.first_work, pass.work_count);
    t.rows.push_back({pass.frame, in_frame_index, pass.context,
                      pass.framebuffer == 0 ? Json("window") : Json(pass.framebuffer),
                      pass.work_count, p.work[pass.first_work].seq,
                      gpu_ms(s.span_ns(), s.measured != 0), gpu_ms(s.busy_ns, s.measured != 0)});
  }
  return t;
}

Table programs_table(const Profile& p, const ProfileReportOptions& o) {
  struct Sum {
    uint64_t work = 0, draws = 0, vertices = 0, gpu_ns = 0, cpu_ns = 0, measured = 0;
  };
  std::map<std::pair<uint32_t, uint64_t>, Sum> sums;  // by (context, program)
  uint64_t all_gpu = 0;
  for (const WorkRecord& w : p.work) {
    if (!in_frame(o, w.frame)) continue;
    Sum& s = sums[{w.context, w.program}];
    ++s.work;
    s.draws += api::has_role(w.function, api::kRoleDraw | api::kRoleOtherDraw) ? 1 : 0;
    s.vertices += w.vertices;
    s.cpu_ns += w.cpu_ns;
    if (w.gpu_measured) {
      s.gpu_ns += w.gpu_ns;
      all_gpu += w.gpu_ns;
      ++s.measured;
    }
  }
  std::vector<std::pair<std::pair<uint32_t, uint64_t>, Sum>> sorted(sums.begin(), sums.end());
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) {
    return a.second.gpu_ns != b.second.gpu_ns ? a.second.gpu_ns > b.second.gpu_ns
                                              : a.second.cpu_ns > b.second.cpu_ns;
  });
  Table t{"programs",
          {"context", "program", "work", "draws", "vertices", "gpu ms", "gpu ms per call",
           "gpu share", "cpu ms"},
          {}};
  for (const auto& [key, s] : sorted) {
    bool measured = s.measured != 0;
    t.rows.push_back({key.first, key.second == 0 ? Json("none") : Json(key.second), s.work, s.draws,
                      s.vertices, gpu_ms(s.gpu_ns, measured),
                      gpu_ms(measured ? s.gpu_ns / s.measured : 0, measured),
                      measured && all_gpu != 0
                          ? Json(static_cast<double>(s.gpu_ns) / static_cast<double>(all_gpu))
                          : Json(),
                      ms(s.cpu_ns)});
  }
  return t;
}

Table draws_table(const Profile& p, const ProfileReportOptions& o) {
  std::vector<const WorkRecord*> work;
  for (const WorkRecord& w : p.work)
    if (in_frame(o, w.frame)) work.push_back(&w);
  // The most expensive first: GPU time where measured, else CPU time.
  std::stable_sort(work.begin(), work.end(), [](const WorkRecord* a, const WorkRecord* b) {
    if (a->gpu_measured != b->gpu_measured) return a->gpu_measured;
    return a->gpu_measured ? a->gpu_ns > b->gpu_ns : a->cpu_ns > b->cpu_ns;
  });
  if (o.top != 0 && work.size() > o.top) work.resize(o.top);
  Table t{o.frame ? "draws (most expensive of frame " + std::to_string(*o.frame) + ")"
                  : "draws (most expensive of the trace)",
          {"rank", "call", "frame", "function", "context", "program", "framebuffer", "vertices",
           "gpu ms", "frame gpu share", "cpu ms", "disjoint"},
          {}};
  // Each frame's GPU busy time, for the share of it one call took.
  std::vector<uint64_t> frame_busy(p.frames.size());
  std::map<uint64_t, size_t> frame_index;
  for (size_t i = 0; i < p.frames.size(); ++i) {
    frame_index[p.frames[i].number] = i;
    frame_busy[i] = gpu_span(p, p.frames[i].first_work, p.frames[i].work_count).busy_ns;
  }
  size_t rank = 0;
  for (const WorkRecord* w : work) {
    auto it = frame_index.find(w->frame);
    uint64_t busy = it != frame_index.end() ? frame_busy[it->second] : 0;
    t.rows.push_back({++rank, w->seq, w->frame, function_name(w->function), w->context,
                      w->program == 0 ? Json("none") : Json(w->program),
                      w->framebuffer == 0 ? Json("window") : Json(w->framebuffer), w->vertices,
                      gpu_ms(w->gpu_ns, w->gpu_measured),
                      w->gpu_measured && busy != 0
                          ? Json(static_cast<double>(w->gpu_ns) / static_cast<double>(busy))
                          : Json(),
                      ms(w->cpu_ns), w->disjoint});
  }
  return t;
}

Table functions_table(const Profile& p) {
  std::vector<uint32_t> ids;
  for (uint32_t i = 0; i < p.functions.size(); ++i)
    if (p.functions[i].calls != 0) ids.push_back(i);
  std::stable_sort(ids.begin(), ids.end(), [&](uint32_t a, uint32_t b) {
    return p.functions[a].cpu_ns > p.functions[b].cpu_ns;
  });
  Table t{"functions", {"function", "calls", "cpu ms", "cpu us per call"}, {}};
  for (uint32_t id : ids) {
    const FunctionCost& c = p.functions[id];
    t.rows.push_back({function_name(id), c.calls, ms(c.cpu_ns),
                      static_cast<double>(c.cpu_ns) / 1e3 / static_cast<double>(c.calls)});
  }
  return t;
}

}  // namespace

bool parse_profile_tables(const std::string& text, std::vector<std::string>* tables,
                          std::string* error) {
  tables->clear();
  size_t at = 0;
  while (at <= text.size()) {
    size_t comma = text.find(',', at);
    std::string name = text.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
    if (name == "all") {
      tables->assign(std::begin(kProfileTables), std::end(kProfileTables));
    } else if (std::find(std::begin(kProfileTables), std::end(kProfileTables), name) !=
               std::end(kProfileTables)) {
      if (std::find(tables->begin(), tables->end(), name) == tables->end()) tables->push_back(name);
    } else {
      *error = "no table '" + name + "' (summary, frames, passes, programs, draws, functions, all)";
      return false;
    }
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  return true;
}

std::string profile_report(const Profile& profile, const ProfileReportOptions& options) {
  std::vector<Table> tables;
  for (const std::string& name : options.tables) {
    if (name == "summary") tables.push_back(summary_table(profile));
    if (name == "frames") tables.push_back(frames_table(profile));
    if (name == "passes") tables.push_back(passes_table(profile, options));
    if (name == "programs") tables.push_back(programs_table(profile, options));
    if (name == "draws") tables.push_back(draws_table(profile, options));
    if (name == "functions") tables.push_back(functions_table(profile));
  }
  std::string out;
  if (options.format == "json") {
    Json all = Json::object();
    for (size_t i = 0; i < tables.size(); ++i) all[options.tables[i]] = table_json(tables[i]);
    return all.dump(1) + "\n";
  }
  for (const Table& t : tables) {
    if (options.format == "csv")
      append_csv(t, &out);
    else
      append_text(t, &out);
  }
  return out;
}

}  // namespace gltrace::glreplay
