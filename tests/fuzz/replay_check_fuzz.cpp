// libFuzzer target: `glreplay --check` (the trace source and the replay's
// validation of every call, no GL) on arbitrary bytes taken as a trace. CRCs
// are made to match first, so mutations reach the records and their
// arguments. Seeds: traces of real call shapes (make_seeds.cpp).
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "glreplay/check.h"
#include "glreplay/trace_source.h"
#include "hostile.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<uint8_t> bytes(data, data + size);
  gltrace::test::fix_chunk_crcs(bytes);
  // TraceSource reads a file: one in memory.
  int fd = memfd_create("trace", MFD_CLOEXEC);
  if (fd < 0) return 0;
  size_t written = 0;
  while (written < bytes.size()) {
    ssize_t n = write(fd, bytes.data() + written, bytes.size() - written);
    if (n <= 0) break;
    written += static_cast<size_t>(n);
  }
  if (written == bytes.size()) {
    auto info = std::make_shared<gltrace::glreplay::TraceInfo>();
    gltrace::glreplay::SourceOptions options;
    options.blob_memory = 16 << 20;
    gltrace::glreplay::TraceSource source(info, options);
    std::string error;
    if (source.open("/proc/self/fd/" + std::to_string(fd), &error)) {
      gltrace::glreplay::CheckReport report;
      gltrace::glreplay::check_trace(source, &report);
    }
  }
  close(fd);
  return 0;
}
