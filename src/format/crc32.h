// CRC-32 (IEEE 802.3, the one of zlib and PNG), guarding each chunk's stored bytes.
#pragma once

#include <cstddef>
#include <cstdint>

namespace gltrace::format {

// Continues `crc` (0 to start) over n bytes.
uint32_t crc32(const void* data, size_t n, uint32_t crc = 0);

}  // namespace gltrace::format
