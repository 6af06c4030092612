#include "gl_loader/gl_loader.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "gl_loader/call.h"

namespace gltrace::gl_loader {
namespace {

// One spelling, typed by the generated id.
static_assert(std::is_same_v<decltype(GL_CALL(std::declval<Driver&>(), glGetIntegerv)),
                             PFN_gltrace_glGetIntegerv>);
static_assert(std::is_same_v<decltype(GL_CALL(std::declval<const Driver&>(), eglInitialize)),
                             PFN_gltrace_eglInitialize>);

bool open_both(Driver& driver, std::string* error) {
  Search search;
  return driver.open(Library::kEgl, search, error) && driver.open(Library::kGles2, search, error);
}

TEST(GlLoader, OpensByNameAndResolvesEveryCoreFunctionById) {
  Driver driver;
  std::string error;
  ASSERT_TRUE(open_both(driver, &error)) << error;
  EXPECT_EQ(driver.path(Library::kEgl), "libEGL.so.1");
  EXPECT_TRUE(driver.has_get_proc_address());
  EXPECT_EQ(driver.interposer_file(), "") << "the tests run on the real driver";
  // Exported: the library's own symbol, and the same address ever after.
  void* get_integer = dlsym(driver.handle(Library::kGles2), "glGetIntegerv");
  ASSERT_NE(get_integer, nullptr);
  EXPECT_EQ(driver.proc(api::kFn_glGetIntegerv), get_integer);
  EXPECT_EQ(reinterpret_cast<void*>(GL_CALL(driver, glGetIntegerv)), get_integer);
  EXPECT_EQ(driver.exported(api::kFn_eglInitialize),
            dlsym(driver.handle(Library::kEgl), "eglInitialize"));
  // No id past the table, nor the invalid one.
  EXPECT_EQ(driver.proc(GLTRACE_FUNCTION_ID_LIMIT), nullptr);
  EXPECT_EQ(driver.proc(api::kInvalidFunction), nullptr);
}

TEST(GlLoader, AnExtensionComesThroughEglGetProcAddressAndAnAbsentOneStaysNull) {
  Driver driver;
  std::string error;
  ASSERT_TRUE(open_both(driver, &error)) << error;
  // Mesa answers eglGetProcAddress for its EGL extensions, and NULL for an
  // EGL name it does not implement (NVIDIA's EGLStreams).
  void* query = driver.get_proc_address("eglQueryDmaBufFormatsEXT");
  if (query != nullptr) {
    EXPECT_EQ(driver.proc(api::kFn_eglQueryDmaBufFormatsEXT), query);
  }
  ASSERT_EQ(driver.get_proc_address("eglCreateStreamKHR"), nullptr);
  EXPECT_EQ(driver.proc(api::kFn_eglCreateStreamKHR), nullptr);
  EXPECT_EQ(driver.proc(api::kFn_eglCreateStreamKHR), nullptr) << "absent is remembered";
}

TEST(GlLoader, ThreadsResolvingAtOnceAgree) {
  Driver driver;
  std::string error;
  ASSERT_TRUE(open_both(driver, &error)) << error;
  std::vector<std::vector<void*>> seen(4);
  std::vector<std::thread> threads;
  for (auto& out : seen)
    threads.emplace_back([&driver, &out] {
      for (uint32_t id = 1; id < 400; ++id) out.push_back(driver.proc(id));
    });
  for (auto& t : threads) t.join();
  for (const auto& out : seen) EXPECT_EQ(out, seen[0]);
}

TEST(GlLoader, AMissingLibraryIsAnErrorNamingIt) {
  Driver driver;
  Search search;
  search.dir = "/nonexistent";
  std::string error;
  EXPECT_FALSE(driver.open(Library::kEgl, search, &error));
  EXPECT_NE(error.find("cannot load /nonexistent/libEGL.so.1"), std::string::npos) << error;
  EXPECT_EQ(driver.handle(Library::kEgl), nullptr);
  EXPECT_EQ(driver.proc(api::kFn_eglInitialize), nullptr);
  EXPECT_EQ(platform_display(driver, Platform::kSurfaceless, EGL_DEFAULT_DISPLAY, &error),
            EGL_NO_DISPLAY);
  EXPECT_EQ(error, "cannot open the surfaceless EGL display");
}

// The interposer's rules: by path, the override first, never `self`.
TEST(GlLoader, SystemPathsTakeTheOverrideFirstAndNeverSelf) {
  Driver system;
  Search search;
  search.mode = Search::Mode::kSystemPaths;
  std::string error;
  ASSERT_TRUE(system.open(Library::kEgl, search, &error)) << error;
  std::string real = system.path(Library::kEgl);
  ASSERT_EQ(real.front(), '/') << real;

  // An override that does not exist is passed over for the system's file.
  Driver passed_over;
  search.override_path = "/nonexistent/libEGL.so.1";
  ASSERT_TRUE(passed_over.open(Library::kEgl, search, &error)) << error;
  EXPECT_EQ(passed_over.path(Library::kEgl), real);

  // One that exists is taken first: the GLES 2 library stands in for EGL.
  Driver gles2;
  ASSERT_TRUE(gles2.open(Library::kGles2, Search{}, &error)) << error;
  Dl_info info{};
  ASSERT_NE(dladdr(dlsym(gles2.handle(Library::kGles2), "glGetIntegerv"), &info), 0);
  std::string gles2_file = info.dli_fname;
  Driver overridden;
  search.override_path = gles2_file.c_str();
  ASSERT_TRUE(overridden.open(Library::kEgl, search, &error)) << error;
  EXPECT_EQ(overridden.path(Library::kEgl), gles2_file);

  // `self`: every name of the same file is skipped, so with the system's
  // libEGL as self there is none to open, and the error lists what was tried.
  Driver refused;
  search.override_path = real.c_str();
  search.self = real.c_str();
  EXPECT_FALSE(refused.open(Library::kEgl, search, &error));
  EXPECT_EQ(error.rfind("tried " + real, 0), 0u) << error;
  EXPECT_EQ(refused.handle(Library::kEgl), nullptr);
}

// The dlopen the caller gives is the one used (the interposer's real one,
// its exported dlopen would hand the driver's names back to itself).
void* g_asked = nullptr;
void* recording_dlopen(const char* path, int flags) {
  g_asked = const_cast<char*>(path);
  return dlopen(path, flags);
}

TEST(GlLoader, OpensWithTheCallersDlopen) {
  Driver driver;
  Search search;
  search.dlopen = &recording_dlopen;
  std::string error;
  ASSERT_TRUE(driver.open(Library::kGles2, search, &error)) << error;
  EXPECT_NE(g_asked, nullptr);
}

TEST(GlLoader, OpensTheSurfacelessDisplay) {
  Driver driver;
  std::string error;
  ASSERT_TRUE(open_both(driver, &error)) << error;
  EGLDisplay display =
      platform_display(driver, Platform::kSurfaceless, EGL_DEFAULT_DISPLAY, &error);
  ASSERT_NE(display, EGL_NO_DISPLAY) << error;
  EXPECT_EQ(GL_CALL(driver, eglTerminate)(display), EGL_TRUE);
}

}  // namespace
}  // namespace gltrace::gl_loader
