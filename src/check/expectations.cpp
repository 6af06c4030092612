#include "check/expectations.h"

#include <fnmatch.h>
#include <toml++/toml.h>

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <set>

#include "glreplay/image_tolerance.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace gltrace::check {

namespace {

constexpr const char* kLabels[] = {"", "skip", "flaky", "broken", "crash", "hang", "slow"};

std::string at(const toml::node& node) {
  return "line " + std::to_string(node.source().begin.line);
}

// Every key of `table` must be one of `known`: a misspelt key is an error,
// not an expectation silently dropped.
bool known_keys(const toml::table& table, std::initializer_list<std::string_view> known,
                const std::string& where, std::string* error) {
  for (const auto& [key, node] : table) {
    bool ok = false;
    for (std::string_view k : known) ok = ok || key.str() == k;
    if (!ok) {
      *error = at(node) + ": " + where + " has no key '" + std::string(key.str()) + "'";
      return false;
    }
  }
  return true;
}

bool get_string(const toml::table& table, std::string_view key, std::string* out,
                std::string* error) {
  const toml::node* node = table.get(key);
  if (node == nullptr) return true;
  if (!node->is_string()) {
    *error = at(*node) + ": '" + std::string(key) + "' wants a string";
    return false;
  }
  *out = node->as_string()->get();
  return true;
}

// A tolerance the replay's grammar reads ("exact" too): checked as the file is
// read, so a run never starts on a file it would misjudge.
bool get_tolerance(const toml::table& table, std::string* out, std::string* error) {
  if (!get_string(table, "tolerance", out, error)) return false;
  glreplay::Tolerance parsed;
  std::string why;
  if (out->empty() || glreplay::parse_tolerance(*out, &parsed, &why)) return true;
  *error = at(*table.get("tolerance")) + ": tolerance: " + why;
  return false;
}

bool get_strings(const toml::table& table, std::string_view key, std::vector<std::string>* out,
                 std::string* error) {
  const toml::node* node = table.get(key);
  if (node == nullptr) return true;
  const toml::array* array = node->as_array();
  for (size_t i = 0; array != nullptr && i < array->size(); ++i) {
    if (!(*array)[i].is_string()) array = nullptr;
  }
  if (array == nullptr) {
    *error = at(*node) + ": '" + std::string(key) + "' wants a list of strings";
    return false;
  }
  for (const toml::node& s : *array) out->push_back(s.as_string()->get());
  return true;
}

bool get_seconds(const toml::table& table, std::optional<double>* out, std::string* error) {
  const toml::node* node = table.get("timeout");
  if (node == nullptr) return true;
  std::optional<double> v = node->value<double>();  // an integer reads too
  if (!v || !(*v > 0) || *v > 86400) {
    *error = at(*node) + ": 'timeout' wants seconds (more than 0, at most 86400)";
    return false;
  }
  *out = v;
  return true;
}

bool read_frames(const toml::table& table, std::vector<uint64_t>* out, std::string* error) {
  const toml::node* node = table.get("frames");
  if (node == nullptr) {
    out->push_back(kLastFrame);
    return true;
  }
  const toml::array* array = node->as_array();
  for (size_t i = 0; array != nullptr && i < array->size(); ++i) {
    const toml::node& f = (*array)[i];
    if (f.is_string() && f.as_string()->get() == "last") {
      out->push_back(kLastFrame);
    } else if (std::optional<int64_t> n = f.value_exact<int64_t>(); n && *n >= 0) {
      out->push_back(static_cast<uint64_t>(*n));
    } else {
      array = nullptr;
    }
  }
  if (array == nullptr || out->empty() || out->size() > 64) {
    *error = at(*node) + ": 'frames' wants 1 to 64 frame numbers (or \"last\")";
    return false;
  }
  return true;
}

bool read_expectation(const std::string& device, const toml::table& table, size_t frames,
                      Expectation* e, std::string* error) {
  std::string where = "the expectation for " + device;
  if (!known_keys(table, {"checksums", "goldens", "tolerance", "label", "note"}, where, error))
    return false;
  e->device = device;
  std::string label;
  if (!get_strings(table, "checksums", &e->checksums, error) ||
      !get_strings(table, "goldens", &e->goldens, error) ||
      !get_tolerance(table, &e->tolerance, error) || !get_string(table, "label", &label, error) ||
      !get_string(table, "note", &e->note, error))
    return false;
  if (!label.empty() && !parse_label(label, &e->label)) {
    *error = at(*table.get("label")) + ": no label '" + label +
             "' (skip, flaky, broken, crash, hang, slow)";
    return false;
  }
  if ((!e->checksums.empty() && e->checksums.size() != frames) ||
      (!e->goldens.empty() && e->goldens.size() != frames)) {
    *error = at(table) + ": " + where + " wants one checksum and golden per frame (" +
             std::to_string(frames) + ")";
    return false;
  }
  return true;
}

bool read_trace(const toml::table& table, const Expectations& file, TraceEntry* t,
                std::string* error) {
  if (!known_keys(table, {"name", "path", "hash", "frames", "timeout", "expect"}, "a trace",
                  error) ||
      !get_string(table, "name", &t->name, error) || !get_string(table, "path", &t->path, error) ||
      !get_string(table, "hash", &t->hash, error) || !read_frames(table, &t->frames, error) ||
      !get_seconds(table, &t->timeout, error))
    return false;
  if (t->path.empty()) {
    *error = at(table) + ": a trace wants a path";
    return false;
  }
  if (t->name.empty()) t->name = t->path;
  const toml::node* expect = table.get("expect");
  if (expect == nullptr) return true;
  if (!expect->is_table()) {
    *error = at(*expect) + ": 'expect' wants a table of devices";
    return false;
  }
  for (const auto& [key, node] : *expect->as_table()) {
    std::string device(key.str());
    bool known = false;
    for (const Device& d : file.devices) known = known || d.name == device;
    if (!known || !node.is_table()) {
      *error =
          at(node) + ": " +
          (known ? "an expectation wants a table" : "no device '" + device + "' under [devices]");
      return false;
    }
    Expectation e;
    if (!read_expectation(device, *node.as_table(), t->frames.size(), &e, error)) return false;
    t->expect.push_back(std::move(e));
  }
  return true;
}

bool read_table(const toml::table& root, Expectations* out, std::string* error) {
  if (!known_keys(root, {"tolerance", "timeout", "devices", "traces"}, "the file", error) ||
      !get_tolerance(root, &out->tolerance, error))
    return false;
  std::optional<double> timeout;
  if (!get_seconds(root, &timeout, error)) return false;
  if (timeout) out->timeout = *timeout;
  if (const toml::node* devices = root.get("devices")) {
    if (!devices->is_table()) {
      *error = at(*devices) + ": 'devices' wants tables";
      return false;
    }
    for (const auto& [key, node] : *devices->as_table()) {
      Device d;
      d.name = std::string(key.str());
      if (!node.is_table()) {
        *error = at(node) + ": device " + d.name + " wants a table";
        return false;
      }
      const toml::table& t = *node.as_table();
      if (!known_keys(t, {"renderer", "version", "vendor"}, "device " + d.name, error) ||
          !get_string(t, "renderer", &d.renderer, error) ||
          !get_string(t, "version", &d.version, error) ||
          !get_string(t, "vendor", &d.vendor, error))
        return false;
      out->devices.push_back(std::move(d));
    }
  }
  if (const toml::node* traces = root.get("traces")) {
    const toml::array* array = traces->as_array();
    if (array == nullptr || !array->is_array_of_tables()) {
      *error = at(*traces) + ": 'traces' wants [[traces]] tables";
      return false;
    }
    std::set<std::string> hashes;
    for (const toml::node& node : *array) {
      TraceEntry t;
      if (!read_trace(*node.as_table(), *out, &t, error)) return false;
      if (!t.hash.empty() && !hashes.insert(t.hash).second) {
        *error = at(node) + ": trace " + t.name + " is listed twice (its hash is another's)";
        return false;
      }
      out->traces.push_back(std::move(t));
    }
  }
  return true;
}

// A TOML basic string.
std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20 || c == 0x7f) {
      char escape[8];
      snprintf(escape, sizeof escape, "\\u%04x", c);
      out += escape;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

std::string quoted_list(const std::vector<std::string>& list) {
  std::string out = "[";
  for (size_t i = 0; i < list.size(); ++i) out += (i ? ", " : "") + quoted(list[i]);
  return out + "]";
}

// A bare key where TOML allows one, else quoted.
std::string key_text(const std::string& key) {
  bool bare = !key.empty();
  for (char c : key)
    bare = bare && (isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_');
  return bare ? key : quoted(key);
}

std::string seconds_text(double s) {
  char text[32];
  snprintf(text, sizeof text, "%.10g", s);
  return text;
}

}  // namespace

std::string DriverIdentity::text() const { return renderer + "; " + version + "; " + vendor; }

bool Device::matches(const DriverIdentity& driver) const {
  auto glob = [](const std::string& pattern, const std::string& s) {
    return pattern.empty() || fnmatch(pattern.c_str(), s.c_str(), 0) == 0;
  };
  return glob(renderer, driver.renderer) && glob(version, driver.version) &&
         glob(vendor, driver.vendor);
}

const char* label_name(Label label) { return kLabels[static_cast<int>(label)]; }

bool parse_label(const std::string& text, Label* out) {
  for (int i = 1; i < static_cast<int>(std::size(kLabels)); ++i) {
    if (text == kLabels[i]) {
      *out = static_cast<Label>(i);
      return true;
    }
  }
  return false;
}

const Expectation* TraceEntry::expectation(const std::string& device) const {
  for (const Expectation& e : expect)
    if (e.device == device) return &e;
  return nullptr;
}

Expectation& TraceEntry::expectation_for_update(const std::string& device) {
  for (Expectation& e : expect)
    if (e.device == device) return e;
  expect.push_back(Expectation{});
  expect.back().device = device;
  return expect.back();
}

std::string Expectations::resolve(const std::string& relative) const {
  if (relative.empty() || relative[0] == '/') return relative;
  return dir + "/" + relative;
}

const Device* Expectations::device_of(const DriverIdentity& driver, std::string* error) const {
  const Device* found = nullptr;
  for (const Device& d : devices) {
    if (!d.matches(driver)) continue;
    if (found != nullptr) {
      *error = "the driver (" + driver.text() + ") is both device " + found->name + " and " +
               d.name + " of " + path;
      return nullptr;
    }
    found = &d;
  }
  return found;
}

const Device& Expectations::add_device(const DriverIdentity& driver) {
  std::string base;
  for (char c : driver.renderer.substr(0, driver.renderer.find(' '))) {
    base += isalnum(static_cast<unsigned char>(c)) ? static_cast<char>(tolower(c)) : '-';
  }
  if (base.empty()) base = "device";
  std::string name = base;
  for (int n = 2;; ++n) {
    bool taken = false;
    for (const Device& d : devices) taken = taken || d.name == name;
    if (!taken) break;
    name = base + "-" + std::to_string(n);
  }
  // A glob's special characters in the strings are matched as themselves.
  auto literal = [](const std::string& s) {
    std::string out;
    for (char c : s) {
      if (c == '*' || c == '?' || c == '[' || c == '\\') out += '\\';
      out += c;
    }
    return out;
  };
  devices.push_back(Device{name, literal(driver.renderer), literal(driver.version), ""});
  return devices.back();
}

bool read_expectations(const std::string& path, Expectations* out, std::string* error) {
  out->path = path;
  size_t slash = path.rfind('/');
  out->dir = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
  toml::table root;
  try {
    root = toml::parse_file(path);
  } catch (const toml::parse_error& e) {
    *error = path + ": line " + std::to_string(e.source().begin.line) + ": " +
             std::string(e.description());
    return false;
  }
  if (!read_table(root, out, error)) {
    *error = path + ": " + *error;
    return false;
  }
  return true;
}

std::string expectations_text(const Expectations& e) {
  std::string out = "# gltrace check expectations (gltrace help check)\n";
  out += "tolerance = " + quoted(e.tolerance) + "\n";
  out += "timeout = " + seconds_text(e.timeout) + "\n";
  for (const Device& d : e.devices) {
    out += "\n[devices." + key_text(d.name) + "]\n";
    if (!d.renderer.empty()) out += "renderer = " + quoted(d.renderer) + "\n";
    if (!d.version.empty()) out += "version = " + quoted(d.version) + "\n";
    if (!d.vendor.empty()) out += "vendor = " + quoted(d.vendor) + "\n";
  }
  for (const TraceEntry& t : e.traces) {
    out += "\n[[traces]]\nname = " + quoted(t.name) + "\npath = " + quoted(t.path) + "\n";
    if (!t.hash.empty()) out += "hash = " + quoted(t.hash) + "\n";
    out += "frames = [";
    for (size_t i = 0; i < t.frames.size(); ++i)
      out += (i ? ", " : "") +
             (t.frames[i] == kLastFrame ? std::string("\"last\"") : std::to_string(t.frames[i]));
    out += "]\n";
    if (t.timeout) out += "timeout = " + seconds_text(*t.timeout) + "\n";
    for (const Expectation& x : t.expect) {
      out += "[traces.expect." + key_text(x.device) + "]\n";
      if (x.label != Label::kNone) out += "label = " + quoted(label_name(x.label)) + "\n";
      if (!x.note.empty()) out += "note = " + quoted(x.note) + "\n";
      if (!x.tolerance.empty()) out += "tolerance = " + quoted(x.tolerance) + "\n";
      if (!x.checksums.empty()) out += "checksums = " + quoted_list(x.checksums) + "\n";
      if (!x.goldens.empty()) out += "goldens = " + quoted_list(x.goldens) + "\n";
    }
  }
  return out;
}

bool write_expectations(const Expectations& e, std::string* error) {
  // Written beside and renamed over: a failed write leaves the old file.
  std::string text = expectations_text(e);
  std::string temporary = e.path + ".new";
  FILE* f = fopen(temporary.c_str(), "w");
  bool ok = f != nullptr && fwrite(text.data(), 1, text.size(), f) == text.size();
  if (f != nullptr) ok = fclose(f) == 0 && ok;
  if (ok) ok = rename(temporary.c_str(), e.path.c_str()) == 0;
  if (!ok) {
    *error = "cannot write " + e.path + ": " + strerror(errno);
    remove(temporary.c_str());
  }
  return ok;
}

bool hash_file(const std::string& path, std::string* hash, std::string* error) {
  FILE* f = fopen(path.c_str(), "rb");
  if (f == nullptr) {
    *error = path + ": " + strerror(errno);
    return false;
  }
  XXH3_state_t* state = XXH3_createState();
  XXH3_128bits_reset(state);
  std::vector<char> buffer(1 << 20);
  size_t n;
  while ((n = fread(buffer.data(), 1, buffer.size(), f)) > 0)
    XXH3_128bits_update(state, buffer.data(), n);
  bool ok = ferror(f) == 0;
  fclose(f);
  XXH128_hash_t h = XXH3_128bits_digest(state);
  XXH3_freeState(state);
  if (!ok) {
    *error = path + ": read error";
    return false;
  }
  char text[48];
  snprintf(text, sizeof text, "xxh3-128:%016" PRIx64 "%016" PRIx64, h.high64, h.low64);
  *hash = text;
  return true;
}

std::string image_checksum(uint32_t width, uint32_t height, const std::vector<uint8_t>& rgba) {
  XXH3_state_t* state = XXH3_createState();
  XXH3_64bits_reset(state);
  uint32_t size[2] = {width, height};
  XXH3_64bits_update(state, size, sizeof size);
  XXH3_64bits_update(state, rgba.data(), rgba.size());
  uint64_t h = XXH3_64bits_digest(state);
  XXH3_freeState(state);
  char text[32];
  snprintf(text, sizeof text, "xxh3:%016" PRIx64, h);
  return text;
}

}  // namespace gltrace::check
