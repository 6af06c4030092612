// libFuzzer target: the trace reader and record decoder on arbitrary bytes.
// The first input byte picks the entry (see tests/format/hostile.h): a whole
// trace, a trace whose CRCs are made to match (so mutations reach zstd and
// the records), or a bare chunk payload. Every decoded field is read
// (RecordText), and an error message without an offset aborts.
#include <cstddef>
#include <cstdint>

#include "hostile.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  gltrace::test::exercise(data, size, /*check=*/true);
  return 0;
}
