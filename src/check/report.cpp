#include "check/report.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

namespace gltrace::check {

namespace {

constexpr const char* kStatuses[] = {"pass", "fail",  "crash",    "hang",           "error",
                                     "skip", "flaky", "expected", "unexpected_pass"};

using Json = nlohmann::ordered_json;

// Text in XML: the five entities, and control characters (which XML 1.0
// cannot hold: a replay's log may carry them) as '?'.
std::string xml(const std::string& s) {
  std::string out;
  for (unsigned char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        out += c < 0x20 && c != '\n' && c != '\t' ? '?' : static_cast<char>(c);
    }
  }
  return out;
}

std::string seconds(double s) {
  char text[32];
  snprintf(text, sizeof text, "%.3f", s);
  return text;
}

// What a failure's details say in JUnit: the frames and the files kept.
std::string details(const TraceResult& r) {
  std::string out = r.message + "\n";
  for (const FrameResult& f : r.frames) {
    out += "frame " + std::to_string(f.frame) + ": " + f.verdict;
    if (f.verdict == "differs" || f.verdict == "within_tolerance")
      out += " (" + std::to_string(f.pixels) + " pixels, max channel difference " +
             std::to_string(f.max_channel_difference) + ")";
    if (!f.image.empty()) out += "; replayed " + f.image;
    if (!f.expected.empty()) out += "; expected " + f.expected;
    if (!f.difference.empty()) out += "; difference " + f.difference;
    out += "\n";
  }
  if (!r.log.empty()) out += "replay log: " + r.log + "\n";
  return out;
}

}  // namespace

const char* status_name(Status status) { return kStatuses[static_cast<int>(status)]; }

bool parse_status(const std::string& text, Status* out) {
  for (int i = 0; i < static_cast<int>(std::size(kStatuses)); ++i) {
    if (text == kStatuses[i]) {
      *out = static_cast<Status>(i);
      return true;
    }
  }
  return false;
}

bool is_failure(Status status) {
  return status == Status::kFail || status == Status::kCrash || status == Status::kHang ||
         status == Status::kError || status == Status::kUnexpectedPass;
}

size_t Report::count(Status status) const {
  return std::count_if(results.begin(), results.end(),
                       [status](const TraceResult& r) { return r.status == status; });
}

bool Report::failed() const {
  return std::any_of(results.begin(), results.end(),
                     [](const TraceResult& r) { return is_failure(r.status); });
}

std::string report_json(const Report& report) {
  Json j;
  j["gltrace_check"] = 1;
  j["expectations"] = report.expectations;
  j["expectations_hash"] = report.expectations_hash;
  j["device"] = report.device;
  j["driver"] = {{"choice", report.driver_choice},
                 {"vendor", report.driver.vendor},
                 {"renderer", report.driver.renderer},
                 {"version", report.driver.version}};
  j["shard"] = {{"index", report.shard}, {"total", report.shards}};
  j["traces"] = report.traces;
  Json summary;
  for (int s = 0; s < static_cast<int>(std::size(kStatuses)); ++s)
    summary[kStatuses[s]] = report.count(static_cast<Status>(s));
  j["summary"] = summary;
  Json& results = j["results"] = Json::array();
  for (const TraceResult& r : report.results) {
    Json t = {{"index", r.index},
              {"name", r.name},
              {"path", r.path},
              {"hash", r.hash},
              {"status", status_name(r.status)},
              {"message", r.message},
              {"label", r.label},
              {"seconds", r.seconds}};
    if (!r.log.empty()) t["log"] = r.log;
    Json& frames = t["frames"] = Json::array();
    for (const FrameResult& f : r.frames) {
      Json fj = {{"frame", f.frame}, {"checksum", f.checksum}, {"verdict", f.verdict}};
      if (f.verdict == "differs" || f.verdict == "within_tolerance") {
        fj["pixels"] = f.pixels;
        fj["max_channel_difference"] = f.max_channel_difference;
        fj["psnr"] = f.psnr;
        fj["ssim"] = f.ssim;
      }
      if (!f.image.empty()) fj["image"] = f.image;
      if (!f.expected.empty()) fj["expected"] = f.expected;
      if (!f.difference.empty()) fj["difference"] = f.difference;
      frames.push_back(std::move(fj));
    }
    results.push_back(std::move(t));
  }
  return j.dump(1) + "\n";
}

bool read_report_json(const std::string& path, Report* out, std::string* error) {
  std::ifstream in(path);
  if (!in) {
    *error = path + ": " + strerror(errno);
    return false;
  }
  try {
    Json j = Json::parse(in);
    if (json_or(j, "gltrace_check", 0) != 1) {
      *error = path + ": not a gltrace check report";
      return false;
    }
    out->expectations = j.at("expectations").get<std::string>();
    out->expectations_hash = j.at("expectations_hash").get<std::string>();
    out->device = j.at("device").get<std::string>();
    const Json& d = j.at("driver");
    out->driver_choice = d.at("choice").get<std::string>();
    out->driver = {d.at("vendor").get<std::string>(), d.at("renderer").get<std::string>(),
                   d.at("version").get<std::string>()};
    out->shard = j.at("shard").at("index").get<uint32_t>();
    out->shards = j.at("shard").at("total").get<uint32_t>();
    out->traces = j.at("traces").get<size_t>();
    for (const Json& t : j.at("results")) {
      TraceResult r;
      r.index = t.at("index").get<size_t>();
      r.name = t.at("name").get<std::string>();
      r.path = t.at("path").get<std::string>();
      r.hash = t.at("hash").get<std::string>();
      if (!parse_status(t.at("status").get<std::string>(), &r.status)) {
        *error = path + ": trace " + r.name + " has an unknown status";
        return false;
      }
      r.message = t.at("message").get<std::string>();
      r.label = t.at("label").get<std::string>();
      r.seconds = t.at("seconds").get<double>();
      r.log = json_or<std::string>(t, "log", "");
      for (const Json& fj : t.at("frames")) {
        FrameResult f;
        f.frame = fj.at("frame").get<uint64_t>();
        f.checksum = fj.at("checksum").get<std::string>();
        f.verdict = fj.at("verdict").get<std::string>();
        f.pixels = json_or(fj, "pixels", uint64_t{0});
        f.max_channel_difference = json_or(fj, "max_channel_difference", 0);
        f.psnr = json_or(fj, "psnr", std::numeric_limits<double>::infinity());
        f.ssim = json_or(fj, "ssim", 1.0);
        f.image = json_or<std::string>(fj, "image", "");
        f.expected = json_or<std::string>(fj, "expected", "");
        f.difference = json_or<std::string>(fj, "difference", "");
        r.frames.push_back(std::move(f));
      }
      out->results.push_back(std::move(r));
    }
  } catch (const nlohmann::json::exception& e) {
    *error = path + ": " + e.what();
    return false;
  }
  return true;
}

std::string report_junit(const Report& report) {
  std::string suite =
      "gltrace check " + (report.device.empty() ? report.driver.renderer : report.device);
  size_t failures = report.count(Status::kFail) + report.count(Status::kUnexpectedPass);
  size_t errors =
      report.count(Status::kCrash) + report.count(Status::kHang) + report.count(Status::kError);
  size_t skipped =
      report.count(Status::kSkip) + report.count(Status::kFlaky) + report.count(Status::kExpected);
  double total = 0;
  for (const TraceResult& r : report.results) total += r.seconds;
  std::string classname = "gltrace.check." + (report.device.empty() ? "device" : report.device);
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += "<testsuites name=\"gltrace check\" tests=\"" + std::to_string(report.results.size()) +
         "\" failures=\"" + std::to_string(failures) + "\" errors=\"" + std::to_string(errors) +
         "\" skipped=\"" + std::to_string(skipped) + "\" time=\"" + seconds(total) + "\">\n";
  out += " <testsuite name=\"" + xml(suite) + "\" tests=\"" +
         std::to_string(report.results.size()) + "\" failures=\"" + std::to_string(failures) +
         "\" errors=\"" + std::to_string(errors) + "\" skipped=\"" + std::to_string(skipped) +
         "\" time=\"" + seconds(total) + "\">\n";
  out += "  <properties>\n   <property name=\"driver\" value=\"" + xml(report.driver.text()) +
         "\"/>\n   <property name=\"expectations\" value=\"" + xml(report.expectations) +
         "\"/>\n  </properties>\n";
  for (const TraceResult& r : report.results) {
    out += "  <testcase classname=\"" + xml(classname) + "\" name=\"" + xml(r.name) + "\" file=\"" +
           xml(r.path) + "\" time=\"" + seconds(r.seconds) + "\">\n";
    std::string message = std::string(status_name(r.status)) + ": " + r.message;
    switch (r.status) {
      case Status::kPass:
        break;
      case Status::kFail:
      case Status::kUnexpectedPass:
        out += "   <failure type=\"" + std::string(status_name(r.status)) + "\" message=\"" +
               xml(message) + "\">" + xml(details(r)) + "</failure>\n";
        break;
      case Status::kCrash:
      case Status::kHang:
      case Status::kError:
        out += "   <error type=\"" + std::string(status_name(r.status)) + "\" message=\"" +
               xml(message) + "\">" + xml(details(r)) + "</error>\n";
        break;
      case Status::kSkip:
      case Status::kFlaky:
      case Status::kExpected:
        out += "   <skipped message=\"" + xml(message) + "\"/>\n";
        break;
    }
    out += "  </testcase>\n";
  }
  out += " </testsuite>\n</testsuites>\n";
  return out;
}

bool merge_reports(const std::vector<Report>& shards, Report* out, std::string* error) {
  if (shards.empty()) {
    *error = "no reports to merge";
    return false;
  }
  const Report& first = shards.front();
  *out = first;
  out->results.clear();
  out->shard = out->shards = 1;
  std::set<uint32_t> seen;
  for (const Report& r : shards) {
    if (r.expectations_hash != first.expectations_hash || r.device != first.device ||
        r.driver.text() != first.driver.text() || r.shards != first.shards) {
      *error = "shard " + std::to_string(r.shard) + "/" + std::to_string(r.shards) +
               " is of another run (its expectations, device or shard count differ)";
      return false;
    }
    if (!seen.insert(r.shard).second) {
      *error =
          "shard " + std::to_string(r.shard) + "/" + std::to_string(r.shards) + " is given twice";
      return false;
    }
    out->results.insert(out->results.end(), r.results.begin(), r.results.end());
  }
  for (uint32_t s = 1; s <= first.shards; ++s) {
    if (seen.count(s) == 0) {
      *error = "shard " + std::to_string(s) + "/" + std::to_string(first.shards) + " is missing";
      return false;
    }
  }
  std::sort(out->results.begin(), out->results.end(),
            [](const TraceResult& a, const TraceResult& b) { return a.index < b.index; });
  for (size_t i = 1; i < out->results.size(); ++i) {
    if (out->results[i].index == out->results[i - 1].index) {
      *error = "trace " + out->results[i].name + " is in two shards";
      return false;
    }
  }
  if (out->results.size() != first.traces) {
    *error = std::to_string(out->results.size()) + " results for the " +
             std::to_string(first.traces) + " traces of " + first.expectations;
    return false;
  }
  return true;
}

bool write_text(const std::string& path, const std::string& text, std::string* error) {
  FILE* f = fopen(path.c_str(), "w");
  bool ok = f != nullptr && fwrite(text.data(), 1, text.size(), f) == text.size();
  if (f != nullptr) ok = fclose(f) == 0 && ok;
  if (!ok) *error = "cannot write " + path + ": " + strerror(errno);
  return ok;
}

}  // namespace gltrace::check
