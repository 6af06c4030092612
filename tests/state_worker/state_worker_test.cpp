// glreplay --state-worker (protocol A of gltrace view): a real trace of the
// bundled demo, recorded here, is read once to learn what the app did (the
// calls' recorded arguments), then the worker is driven through a pipe and
// every answer is checked against the trace: state at a draw (viewport,
// program, a uniform, the bound texture's size, the attribute layout), the
// framebuffer against the demo's own checksum of that frame, a texture and a
// buffer read back against their recorded uploads, a shader's source;
// forward and backward gotos; bad requests; a call the replay refuses.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "encode.h"
#include "format/writer.h"
#include "glreplay/session.h"
#include "glreplay/trace_source.h"
#include "gltrace/api/functions.h"
#include "mutate.h"
#include "support/subprocess.h"

namespace gltrace::test {
namespace {

using json = nlohmann::json;

constexpr uint32_t kGlElementArrayBuffer = 0x8893;
constexpr uint32_t kGlTexture2D = 0x0DE1;

EnvChanges clean_env() {
  static const std::string runtime = make_temp_dir();
  return {{"DEBUG_GLES_LAYERS", std::nullopt},        {"LD_PRELOAD", std::nullopt},
          {"GLTRACE_LAYER_PATH", std::nullopt},       {"GLTRACE_TRACE_FILE", std::nullopt},
          {"XDG_CONFIG_HOME", make_temp_dir()},       {"XDG_RUNTIME_DIR", runtime},
          {"GLTRACE_SYSTEM_SETTINGS", "/nonexistent"}};
}

// The demo, traced with its per-frame checksums (CRC32 of the RGBA pixels
// it reads back just before each swap).
struct DemoTrace {
  std::string path;
  std::map<int, uint32_t> frame_crc;
};
const DemoTrace& demo() {
  static const DemoTrace trace = [] {
    DemoTrace t;
    t.path = make_temp_dir() + "/demo.gltrace";
    ProcessResult r = run_process({build_bin("gltrace"), "trace", "-o", t.path, "--",
                                   build_bin("gltrace-demo"), "--frames", "3", "--checksum"},
                                  clean_env());
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::regex line("frame (\\d+) crc 0x([0-9a-f]{8})");
    for (std::sregex_iterator it(r.out.begin(), r.out.end(), line), end; it != end; ++it)
      t.frame_crc[std::stoi((*it)[1])] = static_cast<uint32_t>(std::stoul((*it)[2], nullptr, 16));
    EXPECT_EQ(t.frame_crc.size(), 3u) << r.out;
    return t;
  }();
  return trace;
}

// What the test needs to know of the recorded calls.
struct Recorded {
  uint64_t last = 0;
  std::vector<uint64_t> draws;
  std::vector<uint64_t> read_pixels;  // the demo's checksum read-backs, one a frame
  std::map<uint64_t, std::array<int64_t, 4>> viewport_at;  // draw -> last glViewport before it
  std::map<uint64_t, uint64_t> program_at;                 // draw -> glUseProgram's
  std::map<uint64_t, uint32_t> context_at;                 // draw -> the trace's context index
  std::map<uint64_t, uint64_t> vao_at;                     // draw -> glBindVertexArray's
  std::map<uint64_t, uint64_t> texture_at;                 // draw -> GL_TEXTURE_2D binding
  // program -> location -> the last glUniform4fv value set (before each draw).
  std::map<uint64_t, std::map<uint64_t, std::map<int64_t, std::vector<float>>>> vec4_at;
  // vao -> index -> {size, stride, pointer}
  std::map<uint64_t, std::map<int64_t, std::array<int64_t, 3>>> pointers;
  std::map<uint64_t, std::string> buffer_data;  // buffer -> its first glBufferData bytes
  std::map<uint64_t, std::array<int64_t, 2>> texture_size;  // level 0 of glTexImage2D
  std::map<uint64_t, std::string> texture_pixels;           // level 0's recorded bytes
  std::map<uint64_t, std::string> shader_source;
  uint64_t first_buffer_data = 0;  // its seq
  uint64_t first_shader_source = 0, first_shader = 0;
};

const Recorded& recorded() {
  static const Recorded rec = [] {
    Recorded r;
    glreplay::TraceSource source(std::make_shared<glreplay::TraceInfo>(), {});
    std::string error;
    EXPECT_TRUE(source.open(demo().path, &error)) << error;
    std::map<uint32_t, uint64_t> buffers;
    std::map<uint64_t, uint64_t> elements;  // vao -> element array buffer
    uint64_t texture = 0, program = 0, vao = 0;
    std::array<int64_t, 4> viewport{};
    std::map<uint64_t, std::map<int64_t, std::vector<float>>> vec4;
    replay::Increment increment;
    while (source.next(&increment, &error) == replay::SourceResult::kIncrement) {
      const auto& call = static_cast<const glreplay::ReplayCall&>(*increment.payload);
      const auto& a = call.args;
      r.last = call.seq;
      switch (call.function) {
        case api::kFn_glBindBuffer:
          // The element array binding is the bound VAO's.
          if (a[0].uint == kGlElementArrayBuffer)
            elements[vao] = a[1].uint;
          else
            buffers[static_cast<uint32_t>(a[0].uint)] = a[1].uint;
          break;
        case api::kFn_glBindTexture:
          if (a[0].uint == kGlTexture2D) texture = a[1].uint;
          break;
        case api::kFn_glUseProgram:
          program = a[0].uint;
          break;
        case api::kFn_glBindVertexArray:
          vao = a[0].uint;
          break;
        case api::kFn_glViewport:
          viewport = {a[0].sint, a[1].sint, a[2].sint, a[3].sint};
          break;
        case api::kFn_glUniform4fv: {
          std::span<const float> v = a[2].floats();
          vec4[program][a[0].sint] = std::vector<float>(v.begin(), v.end());
          break;
        }
        case api::kFn_glVertexAttribPointer:
          r.pointers[vao][a[0].sint] = {a[1].sint, a[4].sint, static_cast<int64_t>(a[5].pointer)};
          break;
        case api::kFn_glBufferData: {
          uint64_t buffer = a[0].uint == kGlElementArrayBuffer
                                ? elements[vao]
                                : buffers[static_cast<uint32_t>(a[0].uint)];
          if (!r.buffer_data.count(buffer) && a[2].kind == format::ValueKind::kData) {
            r.buffer_data[buffer] = std::string(a[2].bytes());
            if (r.first_buffer_data == 0) r.first_buffer_data = call.seq;
          }
          break;
        }
        case api::kFn_glTexImage2D:
          if (a[1].sint == 0) {
            r.texture_size[texture] = {a[3].sint, a[4].sint};
            if (a[8].kind == format::ValueKind::kData)
              r.texture_pixels[texture] = std::string(a[8].bytes());
          }
          break;
        case api::kFn_glShaderSource: {
          std::string text;
          for (std::string_view s : a[2].strings()) text += s;
          r.shader_source[a[0].uint] = text;
          if (r.first_shader_source == 0) {
            r.first_shader_source = call.seq;
            r.first_shader = a[0].uint;
          }
          break;
        }
        case api::kFn_glReadPixels:
          r.read_pixels.push_back(call.seq);
          break;
        case api::kFn_glDrawArrays:
        case api::kFn_glDrawElements:
        case api::kFn_glDrawArraysInstanced:
          r.draws.push_back(call.seq);
          r.viewport_at[call.seq] = viewport;
          r.program_at[call.seq] = program;
          r.context_at[call.seq] = call.context;
          r.vao_at[call.seq] = vao;
          r.texture_at[call.seq] = texture;
          r.vec4_at[program][call.seq] = vec4[program];
          break;
        default:
          break;
      }
    }
    return r;
  }();
  return rec;
}

// A worker on pipes.
class Worker {
 public:
  explicit Worker(const std::string& trace, const std::string& command = "glreplay",
                  const std::vector<std::string>& options = {}) {
    int in[2], out[2];
    EXPECT_EQ(pipe2(in, O_CLOEXEC), 0);
    EXPECT_EQ(pipe2(out, O_CLOEXEC), 0);
    err_path_ = make_temp_dir() + "/worker.err";
    std::vector<std::string> argv = {build_bin(command)};
    if (command == "gltrace") argv.emplace_back("replay");
    argv.emplace_back("--state-worker");
    argv.insert(argv.end(), options.begin(), options.end());
    argv.push_back(trace);
    pid_ = fork();
    if (pid_ == 0) {
      dup2(in[0], 0);
      dup2(out[1], 1);
      int err = open(err_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
      dup2(err, 2);
      unsetenv("LD_PRELOAD");
      std::vector<char*> args;
      for (std::string& a : argv) args.push_back(a.data());
      args.push_back(nullptr);
      execv(args[0], args.data());
      _exit(127);
    }
    close(in[0]);
    close(out[1]);
    to_ = fdopen(in[1], "w");
    from_ = fdopen(out[0], "r");
  }
  ~Worker() {
    if (to_ != nullptr) fclose(to_);
    if (from_ != nullptr) fclose(from_);
    if (pid_ > 0 && !waited_) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  // Sends a line, returns the reply line parsed; the bytes of its binary
  // frame (a reply's "bytes": N raw bytes after its line) as its "payload".
  json ask(const std::string& line) {
    fprintf(to_, "%s\n", line.c_str());
    fflush(to_);
    char* reply = nullptr;
    size_t capacity = 0;
    ssize_t n = getline(&reply, &capacity, from_);
    std::string text = n > 0 ? std::string(reply, static_cast<size_t>(n)) : "";
    free(reply);
    if (text.empty()) {
      ADD_FAILURE() << "no reply to " << line << "; stderr: " << read_text_file(err_path_);
      return json();
    }
    json parsed = json::parse(text, nullptr, false);
    EXPECT_FALSE(parsed.is_discarded()) << text;
    if (parsed.is_object() && parsed.contains("bytes")) {
      std::string payload(parsed["bytes"].get<size_t>(), '\0');
      EXPECT_EQ(fread(payload.data(), 1, payload.size(), from_), payload.size()) << text;
      parsed["payload"] = std::move(payload);
    }
    return parsed;
  }
  json ask(const json& request) { return ask(request.dump()); }
  json ask(const char* line) { return ask(std::string(line)); }

  // Closes stdin; the exit status, and whatever else came on stdout.
  int finish(std::string* rest) {
    fclose(to_);
    to_ = nullptr;
    char buffer[4096];
    size_t n;
    while ((n = fread(buffer, 1, sizeof buffer, from_)) > 0) rest->append(buffer, n);
    int status = 0;
    waitpid(pid_, &status, 0);
    waited_ = true;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  std::string err() const { return read_text_file(err_path_); }

 private:
  pid_t pid_ = -1;
  bool waited_ = false;
  FILE* to_ = nullptr;
  FILE* from_ = nullptr;
  std::string err_path_;
};

json go(Worker& w, uint64_t call, int id = 1) {
  return w.ask(json{{"id", id}, {"op", "goto"}, {"call", call}});
}

// The bytes a reply's binary frame carried.
std::string payload(const json& reply) {
  return reply.contains("payload") ? reply["payload"].get<std::string>() : std::string();
}

// An 8-bit RGBA PNG decoded (any filters): top row first.
bool decode_png(const std::string& png, uint32_t* width, uint32_t* height,
                std::vector<uint8_t>* rgba) {
  if (png.size() < 8 || png.compare(0, 8, "\x89PNG\r\n\x1a\n") != 0) return false;
  std::string idat;
  auto be32 = [&](size_t at) {
    return (uint32_t{static_cast<uint8_t>(png[at])} << 24) |
           (uint32_t{static_cast<uint8_t>(png[at + 1])} << 16) |
           (uint32_t{static_cast<uint8_t>(png[at + 2])} << 8) | static_cast<uint8_t>(png[at + 3]);
  };
  for (size_t at = 8; at + 8 <= png.size();) {
    uint32_t length = be32(at);
    std::string type = png.substr(at + 4, 4);
    if (at + 12 + length > png.size()) return false;
    if (type == "IHDR") {
      *width = be32(at + 8);
      *height = be32(at + 12);
      if (png[at + 16] != 8 || png[at + 17] != 6) return false;  // 8-bit RGBA only
    } else if (type == "IDAT") {
      idat += png.substr(at + 8, length);
    }
    at += 12 + length;
  }
  size_t row = size_t{*width} * 4;
  std::vector<uint8_t> raw((row + 1) * *height);
  uLongf size = raw.size();
  if (uncompress(raw.data(), &size, reinterpret_cast<const Bytef*>(idat.data()), idat.size()) !=
          Z_OK ||
      size != raw.size())
    return false;
  rgba->assign(row * *height, 0);
  for (uint32_t y = 0; y < *height; ++y) {
    uint8_t filter = raw[y * (row + 1)];
    const uint8_t* in = &raw[y * (row + 1) + 1];
    uint8_t* out = &(*rgba)[y * row];
    const uint8_t* up = y > 0 ? &(*rgba)[(y - 1) * row] : nullptr;
    for (size_t x = 0; x < row; ++x) {
      int a = x >= 4 ? out[x - 4] : 0, b = up ? up[x] : 0, c = up && x >= 4 ? up[x - 4] : 0;
      int p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);
      int predictor = filter == 0   ? 0
                      : filter == 1 ? a
                      : filter == 2 ? b
                      : filter == 3 ? (a + b) / 2
                                    : (pa <= pb && pa <= pc ? a
                                       : pb <= pc           ? b
                                                            : c);
      out[x] = static_cast<uint8_t>(in[x] + predictor);
    }
  }
  return true;
}

// The RGBA rows bottom first (as glReadPixels returns them), CRC32.
uint32_t crc_bottom_up(const std::vector<uint8_t>& top_down, uint32_t width, uint32_t height) {
  size_t row = size_t{width} * 4;
  uLong crc = crc32(0, nullptr, 0);
  for (uint32_t y = height; y-- > 0;) crc = crc32(crc, &top_down[y * row], static_cast<uInt>(row));
  return static_cast<uint32_t>(crc);
}

// A draw on the surface (viewport of the window) with a texture bound.
uint64_t textured_surface_draw(const Recorded& r) {
  for (uint64_t draw : r.draws) {
    auto v = r.viewport_at.at(draw);
    if (v[2] == 320 && v[3] == 240 && r.texture_at.at(draw) != 0 &&
        !r.vec4_at.at(r.program_at.at(draw)).at(draw).empty())
      return draw;
  }
  ADD_FAILURE() << "the demo has no textured draw on its surface";
  return 0;
}

TEST(StateWorker, StateAtADrawIsWhatTheTraceSays) {
  const Recorded& r = recorded();
  uint64_t draw = textured_surface_draw(r);
  Worker w(demo().path);
  json reply = go(w, draw);
  ASSERT_TRUE(reply["ok"]) << reply;
  EXPECT_EQ(reply["call"], draw);
  EXPECT_EQ(reply["replayed"], draw + 1);
  EXPECT_EQ(reply["restarted"], false);
  EXPECT_TRUE(reply["warnings"].empty()) << reply;

  json state = w.ask(R"({"id":2,"op":"state"})");
  ASSERT_TRUE(state["ok"]) << state;
  EXPECT_EQ(state["id"], 2);
  EXPECT_EQ(state["call"], draw);
  EXPECT_EQ(state["thread"], 1);
  EXPECT_EQ(state["context"], r.context_at.at(draw));
  const json& s = state["state"];
  auto v = r.viewport_at.at(draw);
  EXPECT_EQ(s["pipeline"]["viewport"], json({v[0], v[1], v[2], v[3]}));
  uint64_t program = r.program_at.at(draw);
  EXPECT_EQ(s["bindings"]["current_program"], json({{"name", program}}));
  EXPECT_EQ(s["program"]["name"], json({{"name", program}}));
  EXPECT_EQ(s["program"]["link_status"], true);
  EXPECT_EQ(s["egl"]["context_client_version"], 3);
  // Every vec4 uniform the app set, as it set it.
  const auto& vec4 = r.vec4_at.at(program).at(draw);
  ASSERT_FALSE(vec4.empty());
  for (const auto& [location, value] : vec4) {
    bool found = false;
    for (const json& u : s["program"]["uniforms"]) {
      if (u["location"] != location) continue;
      found = true;
      EXPECT_EQ(u["type"], "GL_FLOAT_VEC4");
      ASSERT_EQ(u["value"].size(), value.size()) << u;
      for (size_t i = 0; i < value.size(); ++i)
        EXPECT_FLOAT_EQ(u["value"][i].get<float>(), value[i]);
    }
    EXPECT_TRUE(found) << "no uniform at location " << location << ": " << s["program"];
  }
  // The bound texture and its size.
  uint64_t texture = r.texture_at.at(draw);
  bool found = false;
  for (const json& t : s["textures"]) {
    if (t["unit"] != 0 || t["target"] != "GL_TEXTURE_2D") continue;
    found = true;
    EXPECT_EQ(t["texture"], json({{"name", texture}}));
    EXPECT_EQ(t["width"], r.texture_size.at(texture)[0]);
    EXPECT_EQ(t["height"], r.texture_size.at(texture)[1]);
    EXPECT_EQ(t["internal_format"], "GL_RGBA8");
  }
  EXPECT_TRUE(found) << s["textures"];
  // The attribute layout of the bound VAO, as glVertexAttribPointer set it.
  uint64_t vao = r.vao_at.at(draw);
  EXPECT_EQ(s["bindings"]["vertex_array"], json({{"name", vao}}));
  const auto& pointers = r.pointers.at(vao);
  ASSERT_EQ(s["vertex_arrays"].size(), pointers.size()) << s["vertex_arrays"];
  for (const json& attribute : s["vertex_arrays"]) {
    const auto& p = pointers.at(attribute["index"].get<int64_t>());
    EXPECT_EQ(attribute["enabled"], true);
    EXPECT_EQ(attribute["size"], p[0]);
    EXPECT_EQ(attribute["stride"], p[1]);
    EXPECT_EQ(attribute["offset"], p[2]);
    EXPECT_EQ(attribute["type"], "GL_FLOAT");
  }
  // The default framebuffer is drawn to.
  EXPECT_EQ(s["framebuffer"]["draw"]["default"], true);
  EXPECT_EQ(s["framebuffer"]["draw"]["status"], "GL_FRAMEBUFFER_COMPLETE");

  EXPECT_EQ(w.ask(R"({"id":9,"op":"quit"})"), json({{"id", 9}, {"ok", true}}));
  std::string rest;
  EXPECT_EQ(w.finish(&rest), 0);
  EXPECT_EQ(rest, "");  // nothing but replies
}

TEST(StateWorker, ForwardCostsTheCallsBetweenBackwardRestarts) {
  const Recorded& r = recorded();
  Worker w(demo().path, "gltrace");  // `gltrace replay --state-worker` too
  json first = go(w, 100);
  ASSERT_TRUE(first["ok"]) << first;
  EXPECT_EQ(first["replayed"], 101);
  json forward = go(w, 250, 2);
  ASSERT_TRUE(forward["ok"]) << forward;
  EXPECT_EQ(forward["replayed"], 150);
  EXPECT_EQ(forward["restarted"], false);
  json same = go(w, 250, 3);
  EXPECT_EQ(same["replayed"], 0);
  json backward = go(w, 50, 4);
  ASSERT_TRUE(backward["ok"]) << backward;
  EXPECT_EQ(backward["restarted"], true);
  EXPECT_EQ(backward["replayed"], 51);
  // The state is the state after call 50 again: no program yet.
  json state = w.ask(R"({"id":5,"op":"state"})");
  EXPECT_EQ(state["call"], 50);
  EXPECT_EQ(state["state"]["program"], nullptr) << state;
  // And forward again, to the end.
  json end = go(w, r.last, 6);
  ASSERT_TRUE(end["ok"]) << end;
  EXPECT_EQ(end["replayed"], r.last - 50);
  json past = go(w, r.last + 1, 7);
  EXPECT_EQ(past["ok"], false);
  EXPECT_NE(past["error"].get<std::string>().find("past the end of the trace"), std::string::npos)
      << past;
  // The worker goes on, and exits 0 at the end of its input.
  EXPECT_EQ(w.ask(R"({"id":8,"op":"state"})")["ok"], true);
  std::string rest;
  EXPECT_EQ(w.finish(&rest), 0);
}

TEST(StateWorker, FramebufferIsTheFrameTheAppChecksummed) {
  const Recorded& r = recorded();
  ASSERT_EQ(r.read_pixels.size(), 3u);
  Worker w(demo().path);
  for (int frame : {1, 0}) {  // forward then back
    ASSERT_TRUE(go(w, r.read_pixels[frame])["ok"]);
    json reply = w.ask(R"({"id":3,"op":"framebuffer"})");
    ASSERT_TRUE(reply["ok"]) << reply;
    uint32_t width = 0, height = 0;
    std::vector<uint8_t> rgba;
    ASSERT_TRUE(decode_png(payload(reply), &width, &height, &rgba));
    EXPECT_EQ(reply["width"], width);
    EXPECT_EQ(reply["height"], height);
    EXPECT_EQ(width, 320u);
    EXPECT_EQ(height, 240u);
    EXPECT_EQ(crc_bottom_up(rgba, width, height), demo().frame_crc.at(frame)) << "frame " << frame;
  }
}

// A draw into the demo's offscreen framebuffer: the framebuffer read back is
// its color texture, read back through the texture op.
TEST(StateWorker, FramebufferObjectIsItsColorTexture) {
  const Recorded& r = recorded();
  uint64_t draw = 0;
  for (uint64_t d : r.draws)
    if (r.viewport_at.at(d)[2] == 128) draw = d;  // the last offscreen draw
  ASSERT_NE(draw, 0u);
  Worker w(demo().path);
  ASSERT_TRUE(go(w, draw)["ok"]);
  json state = w.ask(R"({"id":2,"op":"state"})");
  const json& fb = state["state"]["framebuffer"]["draw"];
  ASSERT_EQ(fb["default"], false) << fb;
  EXPECT_EQ(fb["status"], "GL_FRAMEBUFFER_COMPLETE");
  ASSERT_GE(fb["attachments"].size(), 2u) << fb;
  EXPECT_EQ(fb["attachments"][0]["attachment"], "GL_COLOR_ATTACHMENT0");
  EXPECT_EQ(fb["attachments"][0]["type"], "GL_TEXTURE");
  EXPECT_EQ(fb["attachments"][0]["level"], 0);
  EXPECT_EQ(fb["attachments"][1]["attachment"], "GL_DEPTH_ATTACHMENT");
  EXPECT_EQ(fb["attachments"][1]["type"], "GL_RENDERBUFFER");
  json color = w.ask(R"({"id":3,"op":"framebuffer"})");
  ASSERT_TRUE(color["ok"]) << color;
  EXPECT_EQ(color["framebuffer"], fb["name"]);
  EXPECT_EQ(color["width"], 128);
  json texture =
      w.ask(json{{"id", 4}, {"op", "texture"}, {"name", fb["attachments"][0]["object"]["name"]}});
  ASSERT_TRUE(texture["ok"]) << texture;
  EXPECT_EQ(payload(texture), payload(color));
  // Not a blank image: the draws left more than the clear colour.
  uint32_t width = 0, height = 0;
  std::vector<uint8_t> rgba;
  ASSERT_TRUE(decode_png(payload(color), &width, &height, &rgba));
  std::set<uint32_t> colours;
  for (size_t p = 0; p < rgba.size(); p += 4) {
    uint32_t c;
    memcpy(&c, &rgba[p], 4);
    colours.insert(c);
  }
  EXPECT_GT(colours.size(), 2u);
}

TEST(StateWorker, TextureBufferAndShaderReadBack) {
  const Recorded& r = recorded();
  Worker w(demo().path);
  ASSERT_TRUE(go(w, r.draws.back())["ok"]);  // the app's context still lives
  // A texture uploaded with pixels: read back as uploaded (RGBA8, rows
  // bottom first in the upload, top first in the PNG).
  ASSERT_FALSE(r.texture_pixels.empty());
  for (const auto& [texture, pixels] : r.texture_pixels) {
    json reply = w.ask(json{{"id", 4},
                            {"op", "texture"},
                            {"name", texture},
                            {"target", "GL_TEXTURE_2D"},
                            {"level", 0}});
    ASSERT_TRUE(reply["ok"]) << reply;
    EXPECT_EQ(reply["internal_format"], "GL_RGBA8");
    uint32_t width = 0, height = 0;
    std::vector<uint8_t> rgba;
    ASSERT_TRUE(decode_png(payload(reply), &width, &height, &rgba));
    ASSERT_EQ(width, static_cast<uint32_t>(r.texture_size.at(texture)[0]));
    ASSERT_EQ(rgba.size(), pixels.size());
    size_t row = size_t{width} * 4;
    for (uint32_t y = 0; y < height; ++y)
      EXPECT_EQ(0, memcmp(&rgba[(height - 1 - y) * row], pixels.data() + y * row, row))
          << "row " << y;
  }
  // Each buffer's recorded glBufferData bytes (the demo never changes them).
  ASSERT_FALSE(r.buffer_data.empty());
  for (const auto& [buffer, bytes] : r.buffer_data) {
    json reply = w.ask(
        json{{"id", 5}, {"op", "buffer"}, {"name", buffer}, {"offset", 0}, {"size", bytes.size()}});
    ASSERT_TRUE(reply["ok"]) << reply;
    EXPECT_EQ(payload(reply), bytes) << "buffer " << buffer;
    json tail =
        w.ask(json{{"id", 5}, {"op", "buffer"}, {"name", buffer}, {"offset", 4}, {"size", 8}});
    EXPECT_EQ(payload(tail), bytes.substr(4, 8));
  }
  // Shader sources, and a program's shaders.
  ASSERT_FALSE(r.shader_source.empty());
  for (const auto& [shader, source] : r.shader_source) {
    json reply = w.ask(json{{"id", 6}, {"op", "shader"}, {"name", shader}});
    // The demo deletes its shaders once linked: they live on, flagged,
    // while their programs hold them.
    ASSERT_TRUE(reply["ok"]) << reply;
    EXPECT_EQ(reply["source"], source);
    EXPECT_EQ(reply["compile_status"], true);
    EXPECT_EQ(reply["delete_status"], true);
  }
  uint64_t program = r.program_at.at(r.draws.front());
  json linked = w.ask(json{{"id", 7}, {"op", "shader"}, {"name", program}});
  ASSERT_TRUE(linked["ok"]) << linked;
  EXPECT_EQ(linked["program"], true);
  EXPECT_EQ(linked["link_status"], true);
  EXPECT_EQ(linked["shaders"].size(), 2u) << linked;
}

TEST(StateWorker, ShaderSourceRightAfterGlShaderSource) {
  const Recorded& r = recorded();
  Worker w(demo().path);
  ASSERT_TRUE(go(w, r.first_shader_source)["ok"]);
  uint64_t shader = r.first_shader;
  json reply = w.ask(json{{"id", 2}, {"op", "shader"}, {"name", shader}});
  ASSERT_TRUE(reply["ok"]) << reply;
  EXPECT_EQ(reply["source"], r.shader_source.at(shader));
  EXPECT_EQ(reply["compile_status"], false);  // not compiled yet
  EXPECT_TRUE(reply["type"] == "GL_VERTEX_SHADER" || reply["type"] == "GL_FRAGMENT_SHADER")
      << reply;
}

TEST(StateWorker, BadRequestsGetErrorsAndTheWorkerGoesOn) {
  const Recorded& r = recorded();
  Worker w(demo().path);
  // Before any goto, no state.
  json early = w.ask(R"({"id":1,"op":"state"})");
  EXPECT_EQ(early["ok"], false);
  EXPECT_EQ(early["id"], 1);
  json not_json = w.ask("this is not json");
  EXPECT_EQ(not_json["id"], nullptr);
  EXPECT_EQ(not_json["ok"], false);
  EXPECT_TRUE(not_json["error"].is_string());
  EXPECT_EQ(w.ask("[1,2]")["id"], nullptr);
  EXPECT_EQ(w.ask(R"({"op":"state"})")["ok"], false);
  EXPECT_EQ(w.ask(R"({"id":"x","op":"state"})")["id"], nullptr);
  json unknown = w.ask(R"({"id":2,"op":"frobnicate"})");
  EXPECT_EQ(unknown["ok"], false);
  EXPECT_EQ(unknown["id"], 2);
  EXPECT_EQ(w.ask(R"({"id":3,"op":"goto"})")["ok"], false);
  EXPECT_EQ(w.ask(R"({"id":3,"op":"goto","call":-1})")["ok"], false);
  EXPECT_EQ(w.ask(R"({"id":3,"op":"goto","call":"12"})")["ok"], false);
  // At the end the app has released its context: nothing to read.
  ASSERT_TRUE(go(w, r.last)["ok"]);
  json no_context = w.ask(R"({"id":3,"op":"framebuffer"})");
  EXPECT_EQ(no_context["ok"], false);
  EXPECT_NE(no_context["error"].get<std::string>().find("no context is current"),
            std::string::npos);
  ASSERT_TRUE(go(w, r.draws.back())["ok"]);
  // Names the trace never made, bad ranges.
  EXPECT_EQ(w.ask(R"({"id":4,"op":"texture","name":999})")["ok"], false);
  EXPECT_EQ(w.ask(R"({"id":4,"op":"buffer","name":999})")["ok"], false);
  EXPECT_EQ(w.ask(R"({"id":4,"op":"shader","name":999})")["ok"], false);
  uint64_t buffer = r.buffer_data.begin()->first;
  size_t size = r.buffer_data.begin()->second.size();
  json past =
      w.ask(json{{"id", 5}, {"op", "buffer"}, {"name", buffer}, {"offset", size}, {"size", 1}});
  EXPECT_EQ(past["ok"], false);
  EXPECT_NE(past["error"].get<std::string>().find("past the buffer"), std::string::npos) << past;
  EXPECT_EQ(w.ask(json{{"id", 5}, {"op", "buffer"}, {"name", buffer}, {"size", 17 << 20}})["ok"],
            false);
  uint64_t texture = r.texture_pixels.begin()->first;
  EXPECT_EQ(
      w.ask(json{{"id", 6}, {"op", "texture"}, {"name", texture}, {"target", "GL_NOPE"}})["ok"],
      false);
  EXPECT_EQ(w.ask(json{{"id", 6}, {"op", "texture"}, {"name", texture}, {"level", 40}})["ok"],
            false);
  // Vertex tables asked for what is no vertex list, no index type, or more
  // than a buffer holds.
  EXPECT_EQ(w.ask(R"({"id":8,"op":"vertices","vertices":"0"})")["ok"], false);
  EXPECT_EQ(w.ask(R"({"id":8,"op":"vertices","vertices":[-1]})")["ok"], false);
  EXPECT_EQ(
      w.ask(json{{"id", 8}, {"op", "vertices"}, {"vertices", std::vector<int>(10001, 0)}})["ok"],
      false);
  EXPECT_EQ(
      w.ask(R"({"id":8,"op":"vertices","index_type":5126,"index_offset":0,"first":0,"count":1})")
          ["ok"],
      false);
  EXPECT_EQ(
      w.ask(
          R"({"id":8,"op":"vertices","index_type":5123,"index_offset":0,"first":0,"count":99999})")
          ["ok"],
      false);
  json far = w.ask(R"({"id":8,"op":"vertices","vertices":[0,1000000000]})");
  EXPECT_EQ(far["ok"], false);
  EXPECT_NE(far["error"].get<std::string>().find("16 MiB"), std::string::npos) << far;
  json beyond = w.ask(R"({"id":8,"op":"vertices","vertices":[100000]})");
  EXPECT_EQ(beyond["ok"], false);
  EXPECT_NE(beyond["error"].get<std::string>().find("past the buffer"), std::string::npos)
      << beyond;
  json one = w.ask(R"({"id":8,"op":"vertices","vertices":[0]})");
  EXPECT_EQ(one["ok"], true) << one;
  EXPECT_EQ(one["rows"].size(), 1u) << one;
  // Still answering.
  EXPECT_EQ(w.ask(R"({"id":7,"op":"state"})")["ok"], true);
}

TEST(StateWorker, ARefusedCallIsAWarningAndTheWorkerGoesOn) {
  const Recorded& r = recorded();
  std::ifstream in(demo().path, std::ios::binary);
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                             std::istreambuf_iterator<char>());
  // The first glBufferData's data becomes a pointer value: replay refuses it.
  bool changed = false;
  std::vector<uint8_t> hostile = rewrite_calls(bytes, [&](CallEdit& call) {
    if (changed || call.function != api::kFn_glBufferData) return;
    call.args[2] = pointer_value(0x7f0012345678);
    call.changed = changed = true;
  });
  ASSERT_TRUE(changed);
  std::string path = make_temp_dir() + "/hostile.gltrace";
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(hostile.data()),
             static_cast<std::streamsize>(hostile.size()));
  Worker w(path);
  json reply = go(w, r.first_buffer_data + 5);
  ASSERT_TRUE(reply["ok"]) << reply;
  ASSERT_EQ(reply["warnings"].size(), 1u) << reply;
  std::string warning = reply["warnings"][0];
  EXPECT_EQ(warning.rfind(
                "call " + std::to_string(r.first_buffer_data) + ": cannot replay glBufferData", 0),
            0u)
      << warning;
  // The rest replays; the state and a later goto answer.
  EXPECT_EQ(w.ask(R"({"id":2,"op":"state"})")["ok"], true);
  json later = go(w, r.last, 3);
  ASSERT_TRUE(later["ok"]) << later;
  EXPECT_TRUE(later["warnings"].empty()) << later;  // each goto lists its own
}

// A trace cut in the middle: the goto past the cut says where the trace
// ends; the state there and a restart still answer.
TEST(StateWorker, ACutTraceReplaysUpToTheCut) {
  std::string dir = make_temp_dir();
  ProcessResult traced = run_process({build_bin("gltrace"), "trace", "-o", dir + "/whole.gltrace",
                                      "--", build_bin("gltrace-demo"), "--frames", "60"},
                                     clean_env());
  ASSERT_EQ(traced.exit_code, 0) << traced.err;
  std::string bytes = read_text_file(dir + "/whole.gltrace");
  write_text_file(dir + "/cut.gltrace", bytes.substr(0, bytes.size() / 2));
  Worker w(dir + "/cut.gltrace");
  json past = go(w, 1000000);
  EXPECT_EQ(past["ok"], false);
  std::string error = past["error"];
  std::smatch last;
  ASSERT_TRUE(
      std::regex_search(error, last, std::regex("^trace error after call (\\d+): .*cut short")))
      << error;
  json state = w.ask(R"({"id":2,"op":"state"})");
  ASSERT_TRUE(state["ok"]) << state;
  EXPECT_EQ(state["call"], std::stoull(last[1]));
  json back = go(w, 100, 3);
  ASSERT_TRUE(back["ok"]) << back;
  EXPECT_EQ(back["restarted"], true);
}

// --follow (gltrace view --attach): a trace still being written. A goto
// past what is written says so, and the calls written later are replayed
// by the same worker, from where it stopped.
TEST(StateWorker, AFollowedTraceReadsOnAsItGrows) {
  std::string dir = make_temp_dir();
  ProcessResult traced = run_process({build_bin("gltrace"), "trace", "-o", dir + "/whole.gltrace",
                                      "--", build_bin("gltrace-demo"), "--frames", "60"},
                                     clean_env());
  ASSERT_EQ(traced.exit_code, 0) << traced.err;
  std::string bytes = read_text_file(dir + "/whole.gltrace");
  std::string path = dir + "/growing.gltrace";
  write_text_file(path, bytes.substr(0, bytes.size() / 2));
  Worker w(path, "gltrace", {"--follow"});
  json past = go(w, 1000000);
  EXPECT_EQ(past["ok"], false);
  std::string error = past["error"];
  std::smatch last;
  ASSERT_TRUE(std::regex_search(
      error, last,
      std::regex("^call 1000000 is not written yet: the trace holds calls up to (\\d+) so far")))
      << error;
  uint64_t written = std::stoull(last[1]);
  {
    std::ofstream out(path, std::ios::binary | std::ios::app);
    out << bytes.substr(bytes.size() / 2);
  }
  json later = go(w, written + 500, 2);
  ASSERT_TRUE(later["ok"]) << later;
  EXPECT_EQ(later["restarted"], false);
  EXPECT_EQ(later["replayed"], 500);
  json end = go(w, 1000000, 3);
  EXPECT_EQ(end["ok"], false);
  EXPECT_NE(end["error"].get<std::string>().find("past the end of the trace"), std::string::npos)
      << end;
}

// A trace whose capture began mid-run (its first call is not call 0): a
// goto before it says so.
TEST(StateWorker, ACallBeforeTheTracesFirstIsAnError) {
  std::string path = make_temp_dir() + "/mid-run.gltrace";
  {
    std::string error;
    auto writer = format::TraceWriter::open_file(path, {}, &error);
    ASSERT_NE(writer, nullptr) << error;
    wire::Encoder e;
    encode_header(e, 42, "mid-run");
    encode_thread(e, 0, 4242, "main");
    for (uint64_t seq = 500; seq < 510; ++seq) encode_call(e, 0, seq, api::kFn_glFlush);
    writer->submit(format::Payload::from_encoder(e), {});
    writer->acquire_buffer().give_to(e);
    ASSERT_TRUE(writer->close(&error)) << error;
  }
  Worker w(path);
  json early = go(w, 5);
  EXPECT_EQ(early["ok"], false);
  EXPECT_EQ(early["error"], "call 5 is before the trace's first call 500") << early;
  json inside = go(w, 504, 2);
  ASSERT_TRUE(inside["ok"]) << inside;
  EXPECT_EQ(inside["replayed"], 5);
}

// Each recorded thread replays on a thread of its own (its context current
// there): the state is that of the thread that made the call.
TEST(StateWorker, StateIsThatOfTheCallsThread) {
  std::string path = make_temp_dir() + "/two.gltrace";
  ProcessResult traced = run_process(
      {build_bin("gltrace"), "trace", "-o", path, "--", build_bin("gltrace-two-threads")},
      clean_env());
  ASSERT_EQ(traced.exit_code, 0) << traced.err;
  // The viewports each thread sets: (seq, thread, width, height).
  std::vector<std::array<uint64_t, 4>> viewports;
  {
    glreplay::TraceSource source(std::make_shared<glreplay::TraceInfo>(), {});
    std::string error;
    ASSERT_TRUE(source.open(path, &error)) << error;
    replay::Increment increment;
    while (source.next(&increment, &error) == replay::SourceResult::kIncrement) {
      const auto& call = static_cast<const glreplay::ReplayCall&>(*increment.payload);
      if (call.function == api::kFn_glViewport)
        viewports.push_back({call.seq, call.thread, call.args[2].uint, call.args[3].uint});
    }
  }
  std::map<uint64_t, std::array<uint64_t, 4>> last_by_thread;
  for (const auto& v : viewports) last_by_thread[v[1]] = v;
  ASSERT_EQ(last_by_thread.size(), 2u);
  Worker w(path);
  int id = 1;
  for (int pass = 0; pass < 2; ++pass) {  // the second pass goes backward: restarts
    for (const auto& [thread, v] : last_by_thread) {
      uint64_t seq = pass == 0 ? v[0] : viewports[2][0];
      json moved = go(w, seq, id++);
      ASSERT_TRUE(moved["ok"]) << moved;
      json state = w.ask(json{{"id", id++}, {"op", "state"}});
      ASSERT_TRUE(state["ok"]) << state;
      uint64_t expected_thread = pass == 0 ? thread : viewports[2][1];
      EXPECT_EQ(state["thread"], expected_thread);
      const auto& expected = pass == 0 ? v : viewports[2];
      EXPECT_EQ(state["state"]["pipeline"]["viewport"], json({0, 0, expected[2], expected[3]}));
    }
  }
  std::string rest;
  EXPECT_EQ(w.finish(&rest), 0);
}

// The reverse lookup the replies use: replay name -> trace name (pure logic).
TEST(StateWorkerNames, ReplayNamesMapBackToTraceNames) {
  glreplay::Session session({}, std::make_shared<glreplay::TraceInfo>());
  session.define_name(glreplay::ObjectClass::kTexture, 5, 9);
  session.define_name(glreplay::ObjectClass::kFramebuffer, 70000, 3);  // past the dense table
  EXPECT_EQ(session.recorded_name(glreplay::ObjectClass::kTexture, 9), 5u);
  // 5 is a trace name that means replay texture 9: replay texture 5 is none of the trace's.
  EXPECT_EQ(session.recorded_name(glreplay::ObjectClass::kTexture, 5), std::nullopt);
  EXPECT_EQ(session.recorded_name(glreplay::ObjectClass::kTexture, 3), 3u);  // never remapped
  EXPECT_EQ(session.recorded_name(glreplay::ObjectClass::kTexture, 0), std::nullopt);
  EXPECT_EQ(session.recorded_name(glreplay::ObjectClass::kFramebuffer, 3), 70000u);
  EXPECT_EQ(session.recorded_name(glreplay::ObjectClass::kBuffer, 9), 9u);  // another class
  EXPECT_TRUE(session.defines_name(glreplay::ObjectClass::kTexture, 5));
  EXPECT_FALSE(session.defines_name(glreplay::ObjectClass::kTexture, 9));
}

// Client arrays, a uniform array, a uniform block (the client-memory app):
// at its first draw.
TEST(StateWorker, ClientArraysUniformArraysAndBlocks) {
  std::string path = make_temp_dir() + "/client.gltrace";
  ProcessResult traced = run_process(
      {build_bin("gltrace"), "trace", "-o", path, "--", build_bin("glreplay_client_app"), "1"},
      clean_env());
  ASSERT_EQ(traced.exit_code, 0) << traced.err;
  uint64_t draw = 0, ubo = 0;
  std::string ubo_bytes;
  {
    glreplay::TraceSource source(std::make_shared<glreplay::TraceInfo>(), {});
    std::string error;
    ASSERT_TRUE(source.open(path, &error)) << error;
    replay::Increment increment;
    while (draw == 0 && source.next(&increment, &error) == replay::SourceResult::kIncrement) {
      const auto& call = static_cast<const glreplay::ReplayCall&>(*increment.payload);
      if (call.function == api::kFn_glBindBufferBase) ubo = call.args[2].uint;
      if (call.function == api::kFn_glBufferSubData &&
          call.args[3].kind == format::ValueKind::kData)
        ubo_bytes = std::string(call.args[3].bytes());
      if (call.function == api::kFn_glDrawArrays) draw = call.seq;
    }
  }
  ASSERT_NE(draw, 0u);
  Worker w(path);
  ASSERT_TRUE(go(w, draw)["ok"]);
  json state = w.ask(R"({"id":2,"op":"state"})");
  ASSERT_TRUE(state["ok"]) << state;
  const json& s = state["state"];
  EXPECT_EQ(s["bindings"]["vertex_array"], nullptr);
  ASSERT_EQ(s["vertex_arrays"].size(), 2u) << s["vertex_arrays"];
  for (const json& attribute : s["vertex_arrays"]) {
    EXPECT_EQ(attribute["buffer"], nullptr);
    EXPECT_EQ(attribute["offset"], nullptr);  // an address, not an offset
    EXPECT_EQ(attribute["client_memory"], true);
  }
  EXPECT_EQ(s["vertex_arrays"][1]["type"], "GL_UNSIGNED_BYTE");
  EXPECT_EQ(s["vertex_arrays"][1]["normalized"], true);
  bool array = false;
  for (const json& u : s["program"]["uniforms"]) {
    if (u["name"] != "u_offset[0]") continue;
    array = true;
    EXPECT_EQ(u["size"], 3);
    EXPECT_EQ(u["value"].size(), 6u) << u;  // 3 elements of 2 floats
  }
  EXPECT_TRUE(array) << s["program"];
  ASSERT_EQ(s["program"]["uniform_blocks"].size(), 1u);
  EXPECT_EQ(s["program"]["uniform_blocks"][0],
            json({{"name", "Tint"}, {"binding", 1}, {"size", 16}}));
  EXPECT_EQ(s["bindings"]["uniform_buffer"], json({{"name", ubo}}));
  // glBindBufferBase(GL_UNIFORM_BUFFER, 1, ubo): the whole buffer (size 0).
  EXPECT_EQ(s["indexed_buffers"], json::parse(R"([{"target":"GL_UNIFORM_BUFFER","index":1,
      "buffer":{"name":)" + std::to_string(ubo) +
                                              R"(},"start":0,"size":0}])"));
  ASSERT_EQ(ubo_bytes.size(), 16u);
  json bytes = w.ask(json{{"id", 3}, {"op", "buffer"}, {"name", ubo}});
  ASSERT_TRUE(bytes["ok"]) << bytes;
  EXPECT_EQ(payload(bytes), ubo_bytes);
}

// Cube faces, array layers and a level other than the base one, each filled
// with one colour by state_worker_textures_app; textures RGBA8 cannot read.
TEST(StateWorker, CubeFacesArrayLayersAndLevelsReadBack) {
  std::string path = make_temp_dir() + "/textures.gltrace";
  ProcessResult traced = run_process(
      {build_bin("gltrace"), "trace", "-o", path, "--", build_bin("state_worker_textures_app")},
      clean_env());
  ASSERT_EQ(traced.exit_code, 0) << traced.err;
  std::vector<uint64_t> names;  // the app's one glGenTextures: cube, array, 2D, float, depth
  uint64_t finish = 0;
  {
    glreplay::TraceSource source(std::make_shared<glreplay::TraceInfo>(), {});
    std::string error;
    ASSERT_TRUE(source.open(path, &error)) << error;
    replay::Increment increment;
    while (source.next(&increment, &error) == replay::SourceResult::kIncrement) {
      const auto& call = static_cast<const glreplay::ReplayCall&>(*increment.payload);
      if (call.function == api::kFn_glGenTextures)
        for (uint64_t name : call.args[1].uints()) names.push_back(name);
      if (call.function == api::kFn_glFinish) finish = call.seq;
    }
  }
  ASSERT_EQ(names.size(), 5u);
  Worker w(path);
  ASSERT_TRUE(go(w, finish)["ok"]);
  // Every texel of image i is the app's colour i.
  auto expect_colour = [&](const json& reply, int i, uint32_t size, const std::string& what) {
    ASSERT_TRUE(reply["ok"]) << what << ": " << reply;
    uint32_t width = 0, height = 0;
    std::vector<uint8_t> rgba;
    ASSERT_TRUE(decode_png(payload(reply), &width, &height, &rgba)) << what;
    EXPECT_EQ(width, size) << what;
    EXPECT_EQ(height, size) << what;
    const uint8_t expected[4] = {static_cast<uint8_t>(30 * i + 10),
                                 static_cast<uint8_t>(250 - 30 * i), static_cast<uint8_t>(7 * i),
                                 255};
    for (size_t p = 0; p < rgba.size(); p += 4)
      ASSERT_EQ(0, memcmp(&rgba[p], expected, 4)) << what << ", texel " << p / 4;
  };
  for (int face = 0; face < 6; ++face)
    expect_colour(w.ask(json{{"id", 1},
                             {"op", "texture"},
                             {"name", names[0]},
                             {"target", "GL_TEXTURE_CUBE_MAP"},
                             {"face", face}}),
                  face, 8, "face " + std::to_string(face));
  for (int layer = 0; layer < 3; ++layer)
    expect_colour(w.ask(json{{"id", 2},
                             {"op", "texture"},
                             {"name", names[1]},
                             {"target", "GL_TEXTURE_2D_ARRAY"},
                             {"layer", layer}}),
                  layer, 4, "layer " + std::to_string(layer));
  expect_colour(w.ask(json{{"id", 3}, {"op", "texture"}, {"name", names[2]}, {"level", 1}}), 1, 4,
                "level 1");
  expect_colour(w.ask(json{{"id", 3}, {"op", "texture"}, {"name", names[2]}, {"level", 0}}), 0, 8,
                "level 0");
  json layer_past = w.ask(json{{"id", 4},
                               {"op", "texture"},
                               {"name", names[1]},
                               {"target", "GL_TEXTURE_2D_ARRAY"},
                               {"layer", 3}});
  EXPECT_EQ(layer_past["ok"], false);
  json wrong_target = w.ask(json{{"id", 4}, {"op", "texture"}, {"name", names[0]}});
  EXPECT_EQ(wrong_target["ok"], false);
  EXPECT_NE(wrong_target["error"].get<std::string>().find("not a GL_TEXTURE_2D"), std::string::npos)
      << wrong_target;
  json float_texture = w.ask(json{{"id", 5}, {"op", "texture"}, {"name", names[3]}});
  EXPECT_EQ(float_texture["ok"], false);
  EXPECT_NE(float_texture["error"].get<std::string>().find("GL_RGBA32F"), std::string::npos)
      << float_texture;
  json depth_texture = w.ask(json{{"id", 5}, {"op", "texture"}, {"name", names[4]}});
  EXPECT_EQ(depth_texture["ok"], false);
  EXPECT_NE(depth_texture["error"].get<std::string>().find("GL_DEPTH_COMPONENT24"),
            std::string::npos)
      << depth_texture;
  // The state shows each unit's texture; the level read put the base level back.
  json state = w.ask(R"({"id":6,"op":"state"})");
  ASSERT_TRUE(state["ok"]) << state;
  std::map<int, json> by_unit;
  for (const json& t : state["state"]["textures"]) by_unit[t["unit"].get<int>()] = t;
  EXPECT_EQ(by_unit[1]["target"], "GL_TEXTURE_CUBE_MAP");
  EXPECT_EQ(by_unit[1]["texture"], json({{"name", names[0]}}));
  EXPECT_EQ(by_unit[2]["target"], "GL_TEXTURE_2D_ARRAY");
  EXPECT_EQ(by_unit[2]["depth"], 3);
  EXPECT_EQ(by_unit[3]["texture"], json({{"name", names[2]}}));
  EXPECT_EQ(by_unit[3]["base_level"], 0);
  EXPECT_EQ(state["state"]["bindings"]["active_texture"], "GL_TEXTURE0");
}

// --driver: the driver's libraries from a directory of the user's.
TEST(StateWorker, DriverFromADirectory) {
  std::string dir;
  for (const char* candidate :
       {"/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/usr/lib"}) {
    if (access((std::string(candidate) + "/libEGL.so.1").c_str(), R_OK) == 0 &&
        access((std::string(candidate) + "/libGLESv2.so.2").c_str(), R_OK) == 0) {
      dir = candidate;
      break;
    }
  }
  ASSERT_FALSE(dir.empty()) << "no libEGL.so.1 found";
  Worker w(demo().path, "glreplay", {"--driver", dir});
  json reply = go(w, recorded().draws.front());
  EXPECT_TRUE(reply["ok"]) << reply << w.err();
  ProcessResult missing = run_process(
      {build_bin("glreplay"), "--state-worker", "--driver", "/nonexistent", demo().path},
      clean_env());
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.err.find("--driver /nonexistent: no such driver"), std::string::npos)
      << missing.err;
  // A directory that holds no driver: said when loading it.
  std::string empty = make_temp_dir();
  ProcessResult no_driver = run_process(
      {build_bin("glreplay"), "--state-worker", "--driver", empty, demo().path}, clean_env());
  EXPECT_EQ(no_driver.exit_code, 1);
  EXPECT_NE(no_driver.err.find("cannot load " + empty + "/libEGL.so.1"), std::string::npos)
      << no_driver.err;
  EXPECT_EQ(missing.out, "");
  ProcessResult replay = run_process(
      {build_bin("glreplay"), "-n", "--driver", "/nonexistent", demo().path}, clean_env());
  EXPECT_EQ(replay.exit_code, 1);
}

TEST(StateWorker, AnOverlongLineIsRefusedAndTheWorkerGoesOn) {
  Worker w(demo().path);
  json reply = w.ask(std::string(2 << 20, ' ') + "{}");
  EXPECT_EQ(reply["id"], nullptr);
  EXPECT_NE(reply["error"].get<std::string>().find("longer than"), std::string::npos) << reply;
  EXPECT_TRUE(go(w, 10)["ok"]);
}

TEST(StateWorker, ConflictingOptionsAreUsageErrors) {
  ProcessResult r =
      run_process({build_bin("glreplay"), "--state-worker", "--compare", demo().path}, clean_env());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--state-worker"), std::string::npos) << r.err;
  ProcessResult follow = run_process({build_bin("glreplay"), "--follow", demo().path}, clean_env());
  EXPECT_EQ(follow.exit_code, 2);
  EXPECT_NE(follow.err.find("--follow goes with --state-worker"), std::string::npos) << follow.err;
  ProcessResult missing =
      run_process({build_bin("glreplay"), "--state-worker", "/nonexistent.gltrace"}, clean_env());
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_EQ(missing.out, "");
}

}  // namespace
}  // namespace gltrace::test
