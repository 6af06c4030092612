// Blob deduplication for one thread's records: pointer data of 256 bytes or
// more is written once as a Blob record and referred to by the blob's id.
//
// A blob is found again by the XXH3-128 hash of its bytes, and the bytes are
// compared before a hash match is trusted wherever the earlier blob's bytes
// are still at hand: in the thread's payload, the records written since its
// last hand-over to the writer (up to a frame, at most ~256 KiB plus one
// record). Once handed over they are compressed on the writer thread and
// gone; keeping copies would cost a second copy of every new blob on the
// app's thread and memory per thread. There the 128-bit hash is the
// guarantee: for n different blobs in one thread's session, a collision has
// probability below n^2 / 2^129 (1e-21 for a billion blobs, ~256 GB of
// distinct data), far below the rate of memory errors. XXH3 is not a
// cryptographic hash: an app that crafts colliding buffers on purpose could
// defeat that part, in its own trace only.
//
// Ids are not hashes: each new blob takes the session's next id (1, 2, ...),
// so blobs of different threads never share one, and a collision found by
// the comparison gives the second blob an id of its own. Readers take ids as
// opaque, so traces whose ids were 64-bit hashes read as before.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "protowire/wire.h"

namespace gltrace::trace {

struct BlobHash {
  uint64_t low = 0, high = 0;
  bool operator==(const BlobHash&) const = default;
};

// XXH3-128 of the bytes.
BlobHash hash_blob(const void* data, size_t size);

class BlobTable {
 public:
  struct Stored {
    uint64_t id;
    bool written;  // a Blob record was appended to the payload
  };

  // The id of the blob with these bytes (`hash` is theirs): one this thread
  // wrote before, or a new one from `last_id` with a Blob record appended to
  // `payload`. `flushes` counts the payload's hand-overs to the writer: the
  // bytes of blobs written before the last one are gone. Allocates only
  // when the table grows (doubling).
  Stored store(wire::Encoder& payload, uint64_t flushes, const BlobHash& hash, const void* data,
               size_t size, std::atomic<uint64_t>& last_id);

  // A new session: no blob written yet (the memory is kept).
  void clear();

 private:
  struct Entry {
    BlobHash hash;
    uint64_t id = 0;  // 0: a free slot
    uint64_t flushes = 0;
    size_t offset = 0;  // of the blob's bytes in the payload of `flushes`
    size_t size = 0;
    // Two different blobs with this hash were met: a match whose bytes
    // are gone is not trusted.
    bool collided = false;
  };
  Entry* find_slot(const BlobHash& hash);
  void grow();

  std::vector<Entry> entries_;  // open addressing, a power of two long
  size_t used_ = 0;
};

}  // namespace gltrace::trace
