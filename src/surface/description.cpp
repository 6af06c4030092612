#include "surface/description.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string_view>
#include <utility>
#include <vector>

#include "replay/options.h"

namespace gltrace::surface {
namespace {

using Json = nlohmann::ordered_json;

// A mistake in the description, with where it is ("events[3].transaction").
struct DescriptionError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

[[noreturn]] void fail(const std::string& where, const std::string& what) {
  throw DescriptionError(where + ": " + what);
}

// ---- base64 (BufferUpdate.contents) -------------------------------------------

constexpr char kBase64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

std::string base64_encode(const std::string& bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    uint32_t v = (static_cast<uint8_t>(bytes[i]) << 16) |
                 (static_cast<uint8_t>(bytes[i + 1]) << 8) | static_cast<uint8_t>(bytes[i + 2]);
    for (int shift = 18; shift >= 0; shift -= 6) out += kBase64[(v >> shift) & 63];
  }
  if (i < bytes.size()) {
    uint32_t v = static_cast<uint8_t>(bytes[i]) << 16;
    if (i + 1 < bytes.size()) v |= static_cast<uint8_t>(bytes[i + 1]) << 8;
    out += kBase64[(v >> 18) & 63];
    out += kBase64[(v >> 12) & 63];
    out += i + 1 < bytes.size() ? kBase64[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

std::string base64_decode(const std::string& text, const std::string& where) {
  if (text.size() % 4 != 0) fail(where, "base64 text whose length is not a multiple of 4");
  std::string out;
  out.reserve(text.size() / 4 * 3);
  for (size_t i = 0; i < text.size(); i += 4) {
    uint32_t v = 0;
    int pad = 0;
    for (size_t k = 0; k < 4; ++k) {
      char c = text[i + k];
      const char* at = c == '\0' ? nullptr : std::strchr(kBase64, c);
      uint32_t digit = 0;
      if (c == '=' && i + 4 == text.size() && k >= 2) {
        ++pad;
      } else if (at == nullptr || pad > 0) {
        fail(where, "not base64 at character " + std::to_string(i + k));
      } else {
        digit = static_cast<uint32_t>(at - kBase64);
      }
      v = (v << 6) | digit;
    }
    out += static_cast<char>((v >> 16) & 0xff);
    if (pad < 2) out += static_cast<char>((v >> 8) & 0xff);
    if (pad < 1) out += static_cast<char>(v & 0xff);
  }
  return out;
}

// ---- reading values -------------------------------------------------------------

std::string type_name(const Json& value) { return value.type_name(); }

template <typename Int>
Int to_int(const Json& value, const std::string& where) {
  if (!value.is_number_integer())
    fail(where, std::string("wants an integer, not ") + type_name(value));
  if (value.is_number_unsigned()) {
    auto v = value.get<uint64_t>();
    if (v > static_cast<uint64_t>(std::numeric_limits<Int>::max())) fail(where, "out of range");
    return static_cast<Int>(v);
  }
  auto v = value.get<int64_t>();
  if (v < static_cast<int64_t>(std::numeric_limits<Int>::min()) ||
      (v > 0 && static_cast<uint64_t>(v) > static_cast<uint64_t>(std::numeric_limits<Int>::max())))
    fail(where, "out of range");
  return static_cast<Int>(v);
}

float to_float(const Json& value, const std::string& where) {
  if (!value.is_number()) fail(where, std::string("wants a number, not ") + type_name(value));
  double v = value.get<double>();
  if (!std::isfinite(v) || std::fabs(v) > std::numeric_limits<float>::max())
    fail(where, "out of range for a float");
  return static_cast<float>(v);
}

bool to_bool(const Json& value, const std::string& where) {
  if (!value.is_boolean()) fail(where, std::string("wants true or false, not ") + type_name(value));
  return value.get<bool>();
}

std::string to_string_value(const Json& value, const std::string& where) {
  if (!value.is_string()) fail(where, std::string("wants a string, not ") + type_name(value));
  return value.get<std::string>();
}

// Generators' times stay within +-2^61 ns (73 years), so their sums and
// differences never overflow.
constexpr int64_t kMaxGeneratorTime = int64_t{1} << 61;

// Time stamps are start_ns plus an offset, and offsets are differences of
// time stamps: modulo 2^64, so any recorded int64 time stamp goes through a
// description and back unchanged (and no hostile value overflows).
int64_t wrapping_add(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}
int64_t wrapping_sub(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b));
}

// A time: integer nanoseconds, or a string with a unit ("1.5s", "200ms").
int64_t to_time(const Json& value, const std::string& where,
                int64_t limit = std::numeric_limits<int64_t>::max()) {
  int64_t t = 0;
  if (value.is_string()) {
    replay::TimeSpec spec;
    std::string error;
    const auto text = value.get<std::string>();
    if (!replay::parse_time_spec(text, &spec, &error) || !spec.from_start)
      fail(where, "'" + text +
                      "' is no time: give nanoseconds as a number, or a string with a "
                      "unit (1.5s, 200ms, 10us, 500ns)");
    t = spec.ns;
  } else {
    t = to_int<int64_t>(value, where);
  }
  if (t > limit || t < -limit) fail(where, "out of range (more than 2^61 ns)");
  return t;
}

double to_rate(const Json& value, const std::string& where) {
  if (!value.is_number()) fail(where, std::string("wants a rate in Hz, not ") + type_name(value));
  double v = value.get<double>();
  // Above 1 MHz a generator would make millions of increments per second.
  if (!std::isfinite(v) || v <= 0 || v > 1e6) fail(where, "wants a rate from 0 to 1000000 Hz");
  return v;
}

const Json& object_at(const Json& value, const std::string& where) {
  if (!value.is_object()) fail(where, std::string("wants an object, not ") + type_name(value));
  return value;
}

const Json& array_at(const Json& value, size_t size, const std::string& where) {
  if (!value.is_array() || value.size() != size)
    fail(where, "wants an array of " + std::to_string(size) + " numbers");
  return value;
}

// The keys an object may have; any other is a mistake worth saying.
void only_keys(const Json& object, std::initializer_list<std::string_view> keys,
               const std::string& where) {
  for (const auto& item : object.items()) {
    if (std::find(keys.begin(), keys.end(), item.key()) == keys.end())
      fail(where, "unknown key '" + item.key() + "'");
  }
}

const Json* find(const Json& object, const char* key) {
  auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

const Json& require(const Json& object, const char* key, const std::string& where) {
  const Json* value = find(object, key);
  if (value == nullptr) fail(where, std::string("needs '") + key + "'");
  return *value;
}

void read_rectangle(const Json& value, Rectangle* out, const std::string& where) {
  const Json& r = array_at(value, 4, where);
  out->set_left(to_int<int32_t>(r[0], where + "[0]"));
  out->set_top(to_int<int32_t>(r[1], where + "[1]"));
  out->set_right(to_int<int32_t>(r[2], where + "[2]"));
  out->set_bottom(to_int<int32_t>(r[3], where + "[3]"));
}

// ---- events ----------------------------------------------------------------------

// One object of a transaction's "surfaces": an id and any number of
// properties, each becoming one SurfaceChange, in proto field order.
void read_surface_changes(const Json& object, Transaction* transaction, const std::string& where) {
  object_at(object, where);
  only_keys(object,
            {"id", "position", "size", "alpha", "layer", "crop", "matrix", "hidden", "opaque",
             "layer_stack", "corner_radius", "relative_parent", "buffer_transform", "buffer_scale"},
            where);
  const int32_t id = to_int<int32_t>(require(object, "id", where), where + ".id");
  bool any = false;
  auto change = [&]() {
    any = true;
    SurfaceChange* c = transaction->add_surface_change();
    c->set_id(id);
    return c;
  };
  if (const Json* v = find(object, "position")) {
    const Json& p = array_at(*v, 2, where + ".position");
    auto* m = change()->mutable_position();
    m->set_x(to_float(p[0], where + ".position[0]"));
    m->set_y(to_float(p[1], where + ".position[1]"));
  }
  if (const Json* v = find(object, "size")) {
    const Json& s = array_at(*v, 2, where + ".size");
    auto* m = change()->mutable_size();
    m->set_w(to_int<uint32_t>(s[0], where + ".size[0]"));
    m->set_h(to_int<uint32_t>(s[1], where + ".size[1]"));
  }
  if (const Json* v = find(object, "alpha"))
    change()->mutable_alpha()->set_alpha(to_float(*v, where + ".alpha"));
  if (const Json* v = find(object, "layer"))
    change()->mutable_layer()->set_layer(to_int<int32_t>(*v, where + ".layer"));
  if (const Json* v = find(object, "crop")) {
    auto* m = change()->mutable_crop();
    if (!v->is_null()) read_rectangle(*v, m->mutable_rectangle(), where + ".crop");
  }
  if (const Json* v = find(object, "matrix")) {
    const Json& a = array_at(*v, 4, where + ".matrix");
    auto* m = change()->mutable_matrix();
    m->set_dsdx(to_float(a[0], where + ".matrix[0]"));
    m->set_dtdx(to_float(a[1], where + ".matrix[1]"));
    m->set_dsdy(to_float(a[2], where + ".matrix[2]"));
    m->set_dtdy(to_float(a[3], where + ".matrix[3]"));
  }
  if (const Json* v = find(object, "hidden"))
    change()->mutable_hidden_flag()->set_hidden_flag(to_bool(*v, where + ".hidden"));
  if (const Json* v = find(object, "opaque"))
    change()->mutable_opaque_flag()->set_opaque_flag(to_bool(*v, where + ".opaque"));
  if (const Json* v = find(object, "layer_stack"))
    change()->mutable_layer_stack()->set_layer_stack(to_int<uint32_t>(*v, where + ".layer_stack"));
  if (const Json* v = find(object, "corner_radius"))
    change()->mutable_corner_radius()->set_corner_radius(to_float(*v, where + ".corner_radius"));
  if (const Json* v = find(object, "relative_parent")) {
    const std::string at = where + ".relative_parent";
    object_at(*v, at);
    only_keys(*v, {"id", "z"}, at);
    auto* m = change()->mutable_relative_parent();
    m->set_relative_parent_id(to_int<int32_t>(require(*v, "id", at), at + ".id"));
    if (const Json* z = find(*v, "z")) m->set_z(to_int<int32_t>(*z, at + ".z"));
  }
  if (const Json* v = find(object, "buffer_transform")) {
    auto t = to_int<uint32_t>(*v, where + ".buffer_transform");
    change()->mutable_buffer_transform()->set_transform(t);
  }
  if (const Json* v = find(object, "buffer_scale"))
    change()->mutable_buffer_scale()->set_scale(to_int<int32_t>(*v, where + ".buffer_scale"));
  if (!any) change();  // an id alone: a change with no property (as describe prints one)
}

void read_display_changes(const Json& object, Transaction* transaction, const std::string& where) {
  object_at(object, where);
  only_keys(object, {"id", "surface", "layer_stack", "size", "projection"}, where);
  const int32_t id = to_int<int32_t>(require(object, "id", where), where + ".id");
  bool any = false;
  auto change = [&]() {
    any = true;
    DisplayChange* c = transaction->add_display_change();
    c->set_id(id);
    return c;
  };
  if (const Json* v = find(object, "surface")) {
    const std::string at = where + ".surface";
    object_at(*v, at);
    only_keys(*v, {"buffer_queue_id", "buffer_queue_name"}, at);
    auto* m = change()->mutable_surface();
    if (const Json* q = find(*v, "buffer_queue_id"))
      m->set_buffer_queue_id(to_int<uint64_t>(*q, at + ".buffer_queue_id"));
    if (const Json* q = find(*v, "buffer_queue_name"))
      m->set_buffer_queue_name(to_string_value(*q, at + ".buffer_queue_name"));
  }
  if (const Json* v = find(object, "layer_stack"))
    change()->mutable_layer_stack()->set_layer_stack(to_int<uint32_t>(*v, where + ".layer_stack"));
  if (const Json* v = find(object, "size")) {
    const Json& s = array_at(*v, 2, where + ".size");
    auto* m = change()->mutable_size();
    m->set_w(to_int<uint32_t>(s[0], where + ".size[0]"));
    m->set_h(to_int<uint32_t>(s[1], where + ".size[1]"));
  }
  if (const Json* v = find(object, "projection")) {
    const std::string at = where + ".projection";
    object_at(*v, at);
    only_keys(*v, {"orientation", "viewport", "frame"}, at);
    auto* m = change()->mutable_projection();
    if (const Json* o = find(*v, "orientation"))
      m->set_orientation(to_int<int32_t>(*o, at + ".orientation"));
    if (const Json* r = find(*v, "viewport"))
      read_rectangle(*r, m->mutable_viewport(), at + ".viewport");
    if (const Json* r = find(*v, "frame")) read_rectangle(*r, m->mutable_frame(), at + ".frame");
  }
  if (!any) change();
}

// An explicit event: {"t": TIME, "<kind>": {...}}. Buffer updates without a
// "frame" get theirs later (auto_frame), once every event is in order.
void read_event(const Json& event, int64_t start_ns, Increment* out, bool* auto_frame,
                const std::string& where) {
  object_at(event, where);
  only_keys(event,
            {"t", "display", "delete_display", "surface", "delete_surface", "buffer", "vsync",
             "power", "transaction", "none"},
            where);
  if (event.size() != 2)
    fail(where,
         "wants a time \"t\" and one event (display, delete_display, surface, "
         "delete_surface, buffer, vsync, power, transaction or none)");
  const int64_t t = to_time(require(event, "t", where), where + ".t");
  out->set_time_stamp(wrapping_add(start_ns, t));
  *auto_frame = false;
  if (const Json* v = find(event, "display")) {
    const std::string at = where + ".display";
    object_at(*v, at);
    only_keys(*v, {"id", "name", "w", "h", "secure", "refresh_mhz"}, at);
    auto* m = out->mutable_display_creation();
    m->set_id(to_int<int32_t>(require(*v, "id", at), at + ".id"));
    if (const Json* x = find(*v, "name")) m->set_name(to_string_value(*x, at + ".name"));
    if (const Json* x = find(*v, "w")) m->set_w(to_int<uint32_t>(*x, at + ".w"));
    if (const Json* x = find(*v, "h")) m->set_h(to_int<uint32_t>(*x, at + ".h"));
    if (const Json* x = find(*v, "secure")) m->set_is_secure(to_bool(*x, at + ".secure"));
    if (const Json* x = find(*v, "refresh_mhz"))
      m->set_refresh_mhz(to_int<int32_t>(*x, at + ".refresh_mhz"));
  } else if (const Json* v = find(event, "delete_display")) {
    out->mutable_display_deletion()->set_id(to_int<int32_t>(*v, where + ".delete_display"));
  } else if (const Json* v = find(event, "surface")) {
    const std::string at = where + ".surface";
    object_at(*v, at);
    only_keys(*v, {"id", "name", "w", "h", "role", "app_id", "title", "parent"}, at);
    auto* m = out->mutable_surface_creation();
    m->set_id(to_int<int32_t>(require(*v, "id", at), at + ".id"));
    if (const Json* x = find(*v, "name")) m->set_name(to_string_value(*x, at + ".name"));
    if (const Json* x = find(*v, "w")) m->set_w(to_int<uint32_t>(*x, at + ".w"));
    if (const Json* x = find(*v, "h")) m->set_h(to_int<uint32_t>(*x, at + ".h"));
    if (const Json* x = find(*v, "role")) m->set_role(to_string_value(*x, at + ".role"));
    if (const Json* x = find(*v, "app_id")) m->set_app_id(to_string_value(*x, at + ".app_id"));
    if (const Json* x = find(*v, "title")) m->set_title(to_string_value(*x, at + ".title"));
    if (const Json* x = find(*v, "parent")) m->set_parent_id(to_int<int32_t>(*x, at + ".parent"));
  } else if (const Json* v = find(event, "delete_surface")) {
    out->mutable_surface_deletion()->set_id(to_int<int32_t>(*v, where + ".delete_surface"));
  } else if (const Json* v = find(event, "buffer")) {
    const std::string at = where + ".buffer";
    object_at(*v, at);
    only_keys(*v, {"surface", "w", "h", "frame", "format", "contents"}, at);
    auto* m = out->mutable_buffer_update();
    m->set_id(to_int<int32_t>(require(*v, "surface", at), at + ".surface"));
    m->set_w(to_int<uint32_t>(require(*v, "w", at), at + ".w"));
    m->set_h(to_int<uint32_t>(require(*v, "h", at), at + ".h"));
    if (const Json* x = find(*v, "frame"))
      m->set_frame_number(to_int<uint64_t>(*x, at + ".frame"));
    else
      *auto_frame = true;
    if (const Json* x = find(*v, "format")) m->set_format(to_int<uint32_t>(*x, at + ".format"));
    if (const Json* x = find(*v, "contents"))
      m->set_contents(base64_decode(to_string_value(*x, at + ".contents"), at + ".contents"));
  } else if (const Json* v = find(event, "vsync")) {
    const std::string at = where + ".vsync";
    object_at(*v, at);
    only_keys(*v, {"display", "when"}, at);
    auto* m = out->mutable_vsync_event();
    m->set_when(out->time_stamp());
    if (const Json* x = find(*v, "display"))
      m->set_display_id(to_int<int32_t>(*x, at + ".display"));
    if (const Json* x = find(*v, "when")) m->set_when(to_int<int64_t>(*x, at + ".when"));
  } else if (const Json* v = find(event, "power")) {
    const std::string at = where + ".power";
    object_at(*v, at);
    only_keys(*v, {"display", "mode"}, at);
    auto* m = out->mutable_power_mode_update();
    m->set_id(to_int<int32_t>(require(*v, "display", at), at + ".display"));
    m->set_mode(to_int<int32_t>(require(*v, "mode", at), at + ".mode"));
  } else if (find(event, "none") != nullptr) {
    // An increment with no event (a newer recorder's kind this one does not know).
  } else if (const Json* v = find(event, "transaction")) {
    const std::string at = where + ".transaction";
    object_at(*v, at);
    only_keys(*v, {"synchronous", "animation", "surfaces", "displays"}, at);
    auto* m = out->mutable_transaction();
    if (const Json* x = find(*v, "synchronous"))
      m->set_synchronous(to_bool(*x, at + ".synchronous"));
    if (const Json* x = find(*v, "animation")) m->set_animation(to_bool(*x, at + ".animation"));
    if (const Json* x = find(*v, "surfaces")) {
      if (!x->is_array()) fail(at + ".surfaces", "wants an array");
      for (size_t i = 0; i < x->size(); ++i)
        read_surface_changes((*x)[i], m, at + ".surfaces[" + std::to_string(i) + "]");
    }
    if (const Json* x = find(*v, "displays")) {
      if (!x->is_array()) fail(at + ".displays", "wants an array");
      for (size_t i = 0; i < x->size(); ++i)
        read_display_changes((*x)[i], m, at + ".displays[" + std::to_string(i) + "]");
    }
  }
}

// A generated increment, merged among the explicit ones by time.
struct Generated {
  int64_t time;
  int rank;  // at one time: buffer updates (0) before VSyncs (1), so a VSync shows them
  Increment increment;
  bool auto_frame;
};

// No description should make more; a typo'd rate must not fill the disk.
constexpr uint64_t kMaxGenerated = 10'000'000;

void generate(const Json& list, const char* key, int64_t start_ns, std::vector<Generated>* out,
              const std::string& top) {
  if (!list.is_array()) fail(top, "wants an array");
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string where = top + "[" + std::to_string(i) + "]";
    const Json& g = object_at(list[i], where);
    const bool vsync = std::string_view(key) == "vsync";
    if (vsync)
      only_keys(g, {"display", "rate_hz", "from", "to"}, where);
    else
      only_keys(g, {"surface", "rate_hz", "from", "to", "w", "h", "format"}, where);
    const double rate = to_rate(require(g, "rate_hz", where), where + ".rate_hz");
    const int64_t from = to_time(require(g, "from", where), where + ".from", kMaxGeneratorTime);
    const int64_t to = to_time(require(g, "to", where), where + ".to", kMaxGeneratorTime);
    if (to < from) fail(where, "'to' is before 'from'");
    const double count = std::floor(static_cast<double>(to - from) * rate / 1e9) + 1;
    if (count + static_cast<double>(out->size()) > static_cast<double>(kMaxGenerated))
      fail(where, "would make more than " + std::to_string(kMaxGenerated) + " increments");
    Increment proto;
    if (vsync) {
      auto* m = proto.mutable_vsync_event();
      if (const Json* x = find(g, "display"))
        m->set_display_id(to_int<int32_t>(*x, where + ".display"));
    } else {
      auto* m = proto.mutable_buffer_update();
      m->set_id(to_int<int32_t>(require(g, "surface", where), where + ".surface"));
      m->set_w(to_int<uint32_t>(require(g, "w", where), where + ".w"));
      m->set_h(to_int<uint32_t>(require(g, "h", where), where + ".h"));
      if (const Json* x = find(g, "format")) m->set_format(to_int<uint32_t>(*x, where + ".format"));
    }
    for (uint64_t k = 0; k < static_cast<uint64_t>(count); ++k) {
      // Each time from the start, not by adding periods: no drift (60 Hz
      // for 10 s ends at exactly 10 s).
      const int64_t t = from + std::llround(static_cast<double>(k) * 1e9 / rate);
      if (t > to) break;
      Generated item{t, vsync ? 1 : 0, proto, !vsync};
      item.increment.set_time_stamp(wrapping_add(start_ns, t));
      if (vsync) item.increment.mutable_vsync_event()->set_when(item.increment.time_stamp());
      out->push_back(std::move(item));
    }
  }
}

}  // namespace

bool create_trace(const std::string& json_text, Trace* trace, std::string* error) {
  trace->Clear();
  try {
    Json root = Json::parse(json_text);
    object_at(root, "the description");
    only_keys(root, {"start_ns", "events", "updates", "vsync"}, "the description");
    int64_t start_ns = 0;
    if (const Json* v = find(root, "start_ns")) start_ns = to_time(*v, "start_ns");

    std::vector<std::pair<Increment, bool>> explicit_events;  // (increment, auto frame)
    if (const Json* events = find(root, "events")) {
      if (!events->is_array()) fail("events", "wants an array");
      for (size_t i = 0; i < events->size(); ++i) {
        Increment increment;
        bool auto_frame = false;
        read_event((*events)[i], start_ns, &increment, &auto_frame,
                   "events[" + std::to_string(i) + "]");
        explicit_events.emplace_back(std::move(increment), auto_frame);
      }
    }
    std::vector<Generated> generated;
    if (const Json* v = find(root, "updates"))
      generate(*v, "updates", start_ns, &generated, "updates");
    if (const Json* v = find(root, "vsync")) generate(*v, "vsync", start_ns, &generated, "vsync");
    std::stable_sort(generated.begin(), generated.end(),
                     [](const Generated& a, const Generated& b) {
                       return a.time != b.time ? a.time < b.time : a.rank < b.rank;
                     });

    // Explicit events keep their order (describe prints a trace's order, even
    // one whose times go back); generated ones go in before the first
    // explicit event that is later, so at one time the explicit come first.
    std::map<int32_t, uint64_t> next_frame;
    auto append = [&](Increment increment, bool auto_frame) {
      Increment* added = trace->add_increment();
      *added = std::move(increment);
      if (!added->has_buffer_update()) return;
      BufferUpdate* update = added->mutable_buffer_update();
      uint64_t& next = next_frame[update->id()];
      if (auto_frame) update->set_frame_number(next);
      next = update->frame_number() + 1;
    };
    size_t g = 0;
    for (auto& [increment, auto_frame] : explicit_events) {
      while (g < generated.size() && generated[g].increment.time_stamp() < increment.time_stamp()) {
        append(std::move(generated[g].increment), generated[g].auto_frame);
        ++g;
      }
      append(std::move(increment), auto_frame);
    }
    for (; g < generated.size(); ++g)
      append(std::move(generated[g].increment), generated[g].auto_frame);
    return true;
  } catch (const Json::exception& e) {
    *error = std::string("not JSON: ") + e.what();
  } catch (const DescriptionError& e) {
    *error = e.what();
  }
  trace->Clear();
  return false;
}

namespace {

Json rectangle_json(const Rectangle& r) {
  return Json::array({r.left(), r.top(), r.right(), r.bottom()});
}

Json surface_change_json(const SurfaceChange& c) {
  Json j;
  j["id"] = c.id();
  switch (c.SurfaceChange_case()) {
    case SurfaceChange::kPosition:
      j["position"] = Json::array({c.position().x(), c.position().y()});
      break;
    case SurfaceChange::kSize:
      j["size"] = Json::array({c.size().w(), c.size().h()});
      break;
    case SurfaceChange::kAlpha:
      j["alpha"] = c.alpha().alpha();
      break;
    case SurfaceChange::kLayer:
      j["layer"] = c.layer().layer();
      break;
    case SurfaceChange::kCrop:
      j["crop"] = c.crop().has_rectangle() ? rectangle_json(c.crop().rectangle()) : Json();
      break;
    case SurfaceChange::kMatrix:
      j["matrix"] =
          Json::array({c.matrix().dsdx(), c.matrix().dtdx(), c.matrix().dsdy(), c.matrix().dtdy()});
      break;
    case SurfaceChange::kHiddenFlag:
      j["hidden"] = c.hidden_flag().hidden_flag();
      break;
    case SurfaceChange::kOpaqueFlag:
      j["opaque"] = c.opaque_flag().opaque_flag();
      break;
    case SurfaceChange::kLayerStack:
      j["layer_stack"] = c.layer_stack().layer_stack();
      break;
    case SurfaceChange::kCornerRadius:
      j["corner_radius"] = c.corner_radius().corner_radius();
      break;
    case SurfaceChange::kRelativeParent:
      j["relative_parent"] = {{"id", c.relative_parent().relative_parent_id()},
                              {"z", c.relative_parent().z()}};
      break;
    case SurfaceChange::kBufferTransform:
      j["buffer_transform"] = c.buffer_transform().transform();
      break;
    case SurfaceChange::kBufferScale:
      j["buffer_scale"] = c.buffer_scale().scale();
      break;
    case SurfaceChange::SURFACECHANGE_NOT_SET:
      break;
  }
  return j;
}

Json display_change_json(const DisplayChange& c) {
  Json j;
  j["id"] = c.id();
  switch (c.DisplayChange_case()) {
    case DisplayChange::kSurface:
      j["surface"] = {{"buffer_queue_id", c.surface().buffer_queue_id()},
                      {"buffer_queue_name", c.surface().buffer_queue_name()}};
      break;
    case DisplayChange::kLayerStack:
      j["layer_stack"] = c.layer_stack().layer_stack();
      break;
    case DisplayChange::kSize:
      j["size"] = Json::array({c.size().w(), c.size().h()});
      break;
    case DisplayChange::kProjection: {
      Json p;
      p["orientation"] = c.projection().orientation();
      if (c.projection().has_viewport()) p["viewport"] = rectangle_json(c.projection().viewport());
      if (c.projection().has_frame()) p["frame"] = rectangle_json(c.projection().frame());
      j["projection"] = p;
      break;
    }
    case DisplayChange::DISPLAYCHANGE_NOT_SET:
      break;
  }
  return j;
}

Json event_json(const Increment& increment, int64_t start_ns) {
  Json j;
  j["t"] = wrapping_sub(increment.time_stamp(), start_ns);
  switch (increment.increment_case()) {
    case Increment::kTransaction: {
      const Transaction& t = increment.transaction();
      Json m = Json::object();
      if (t.synchronous()) m["synchronous"] = true;
      if (t.animation()) m["animation"] = true;
      if (t.surface_change_size() > 0) {
        m["surfaces"] = Json::array();
        for (const SurfaceChange& c : t.surface_change())
          m["surfaces"].push_back(surface_change_json(c));
      }
      if (t.display_change_size() > 0) {
        m["displays"] = Json::array();
        for (const DisplayChange& c : t.display_change())
          m["displays"].push_back(display_change_json(c));
      }
      j["transaction"] = m;
      break;
    }
    case Increment::kSurfaceCreation: {
      const SurfaceCreation& s = increment.surface_creation();
      Json m;
      m["id"] = s.id();
      m["name"] = s.name();
      m["w"] = s.w();
      m["h"] = s.h();
      if (!s.role().empty()) m["role"] = s.role();
      if (!s.app_id().empty()) m["app_id"] = s.app_id();
      if (!s.title().empty()) m["title"] = s.title();
      if (s.parent_id() != 0) m["parent"] = s.parent_id();
      j["surface"] = m;
      break;
    }
    case Increment::kSurfaceDeletion:
      j["delete_surface"] = increment.surface_deletion().id();
      break;
    case Increment::kBufferUpdate: {
      const BufferUpdate& b = increment.buffer_update();
      Json m;
      m["surface"] = b.id();
      m["w"] = b.w();
      m["h"] = b.h();
      m["frame"] = b.frame_number();
      if (b.format() != 0) m["format"] = b.format();
      if (!b.contents().empty()) m["contents"] = base64_encode(b.contents());
      j["buffer"] = m;
      break;
    }
    case Increment::kVsyncEvent: {
      Json m = Json::object();
      m["display"] = increment.vsync_event().display_id();
      if (increment.vsync_event().when() != increment.time_stamp())
        m["when"] = increment.vsync_event().when();
      j["vsync"] = m;
      break;
    }
    case Increment::kDisplayCreation: {
      const DisplayCreation& d = increment.display_creation();
      Json m;
      m["id"] = d.id();
      m["name"] = d.name();
      m["w"] = d.w();
      m["h"] = d.h();
      if (d.is_secure()) m["secure"] = true;
      if (d.refresh_mhz() != 0) m["refresh_mhz"] = d.refresh_mhz();
      j["display"] = m;
      break;
    }
    case Increment::kDisplayDeletion:
      j["delete_display"] = increment.display_deletion().id();
      break;
    case Increment::kPowerModeUpdate:
      j["power"] = {{"display", increment.power_mode_update().id()},
                    {"mode", increment.power_mode_update().mode()}};
      break;
    case Increment::INCREMENT_NOT_SET:
      j["none"] = nullptr;
      break;
  }
  return j;
}

}  // namespace

std::string describe_trace(const Trace& trace) {
  const int64_t start_ns = trace.increment_size() > 0 ? trace.increment(0).time_stamp() : 0;
  // One event per line: readable, and diffs of two descriptions line up.
  std::string text = "{\n  \"start_ns\": " + std::to_string(start_ns) + ",\n  \"events\": [";
  for (int i = 0; i < trace.increment_size(); ++i) {
    text += i == 0 ? "\n    " : ",\n    ";
    text += event_json(trace.increment(i), start_ns).dump();
  }
  text += trace.increment_size() == 0 ? "]\n}\n" : "\n  ]\n}\n";
  return text;
}

}  // namespace gltrace::surface
