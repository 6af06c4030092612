#include "trace/blob_table.h"

#include <algorithm>
#include <cstring>

#include "format/encoders.h"
#include "format/record_builder.h"
#include "format/schema.h"

// Inlined: no run-time dependency on libxxhash in the apps the layer is
// loaded into, and the hash of a short blob is a few instructions.
#define XXH_INLINE_ALL
#include <xxhash.h>

namespace gltrace::trace {
namespace {

namespace schema = gltrace::schema;

constexpr size_t kInitialSlots = 64;

// Record{blob = Blob{id, data}} appended in place (no copy of the data but
// into the payload); returns the offset of the data in the payload.
size_t write_blob_record(wire::Encoder& out, uint64_t id, const void* data, size_t size) {
  static_assert(schema::blob::kId < 16 && schema::blob::kData < 16);
  size_t blob_size = 1 + 8 + 1 + wire::varint_size(size) + size;
  format::begin_record(out, schema::record::kBlob, blob_size);
  schema::blob::set_id(out, id);
  schema::blob::set_data(out, data, size);
  return out.size() - size;
}

}  // namespace

BlobHash hash_blob(const void* data, size_t size) {
  XXH128_hash_t h = XXH3_128bits(data, size);
  return {h.low64, h.high64};
}

BlobTable::Entry* BlobTable::find_slot(const BlobHash& hash) {
  size_t mask = entries_.size() - 1;
  for (size_t i = hash.low & mask;; i = (i + 1) & mask) {
    Entry& e = entries_[i];
    if (e.id == 0 || e.hash == hash) return &e;
  }
}

void BlobTable::grow() {
  std::vector<Entry> old(entries_.empty() ? kInitialSlots : entries_.size() * 2);
  old.swap(entries_);
  for (const Entry& e : old)
    if (e.id != 0) *find_slot(e.hash) = e;
}

BlobTable::Stored BlobTable::store(wire::Encoder& payload, uint64_t flushes, const BlobHash& hash,
                                   const void* data, size_t size, std::atomic<uint64_t>& last_id) {
  // At most half full: probes stay short, and a free slot always ends one.
  if ((used_ + 1) * 2 > entries_.size()) grow();
  Entry* e = find_slot(hash);
  if (e->id != 0) {
    if (e->flushes == flushes) {
      // Its bytes are still in the payload: they decide.
      if (e->size == size && e->offset + size <= payload.size() &&
          memcmp(payload.data() + e->offset, data, size) == 0)
        return {e->id, false};
      e->collided = true;
    } else if (!e->collided) {
      return {e->id, false};
    }
  } else {
    ++used_;
  }
  // New, or a collision: the entry is this blob's from now on (the earlier
  // one keeps its id and record; a later match is checked against these
  // bytes, or not trusted once they are gone).
  uint64_t id = last_id.fetch_add(1, std::memory_order_relaxed) + 1;
  e->hash = hash;
  e->id = id;
  e->flushes = flushes;
  e->offset = write_blob_record(payload, id, data, size);
  e->size = size;
  return {id, true};
}

void BlobTable::clear() {
  std::fill(entries_.begin(), entries_.end(), Entry{});
  used_ = 0;
}

}  // namespace gltrace::trace
